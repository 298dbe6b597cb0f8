/** What a checker says: valid, invalid, or unknown (it could not decide in its budget). */
export type Validity = boolean | 'unknown';

/** A checker's result: its verdict and whatever it found, serialized as is into results.json. */
export interface CheckerReport {
  readonly valid: Validity;
}

export interface WorkloadReport {
  readonly valid: Validity;
  readonly checkers: Record<string, CheckerReport>;
  readonly operations: Record<string, Record<string, number>>;
}

/** results.json. */
export interface RunResults {
  readonly valid: Validity;
  readonly run: {
    readonly name: string;
    readonly seed: number;
    readonly nodes: number;
    readonly timeSeconds: number;
    readonly nemesis: readonly string[];
    readonly workloads: readonly string[];
    readonly startedAt: string;
    readonly durationMs: number;
  };
  readonly workloads: Record<string, WorkloadReport>;
  readonly nemesis: {
    readonly faultsInjected: number;
    readonly byFamily: Record<string, number>;
    readonly skipped: readonly { family: string; reason: string }[];
    readonly errors: readonly string[];
  };
  /** Problems of the run itself (a node that would not start, a drain that never emptied). */
  readonly runErrors: readonly string[];
}

/** false wins over unknown, which wins over true. */
export function combineValidity(values: readonly Validity[]): Validity {
  if (values.some((v) => v === false)) return false;
  if (values.some((v) => v === 'unknown')) return 'unknown';
  return true;
}
