import type { ClusterResult } from '../checkers/cluster-checker.js';

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
    /** The bug the first node ran with on purpose, if any: the run is meant to come out invalid. */
    readonly failpoint?: string;
    readonly startedAt: string;
    readonly durationMs: number;
  };
  readonly workloads: Record<string, WorkloadReport>;
  /** What the nodes say: unasked exits, nemesis failures, drains, final replica states, fatal log lines. */
  readonly cluster: ClusterResult;
  readonly nemesis: {
    /** Faults the schedule held; each one not injected was skipped or failed. */
    readonly faultsScheduled?: number;
    readonly faultsInjected: number;
    readonly byFamily: Record<string, number>;
    readonly skipped: readonly { family: string; reason: string }[];
    readonly errors: readonly string[];
  };
  /** Problems of the run itself (the cluster never started, an exception in the runner). */
  readonly runErrors: readonly string[];
}

/** false wins over unknown, which wins over true. */
export function combineValidity(values: readonly Validity[]): Validity {
  if (values.some((v) => v === false)) return false;
  if (values.some((v) => v === 'unknown')) return 'unknown';
  return true;
}

/**
 * A run's verdict: invalid when any workload's checkers or the cluster checker say so; unknown
 * when the run itself broke (nothing can be vouched for) or a checker could not decide.
 */
export function runValidity(workloads: readonly Validity[], cluster: boolean, runErrors: readonly string[]): Validity {
  const checked = combineValidity([...workloads, cluster]);
  if (checked === false) return false;
  if (runErrors.length > 0 || workloads.length === 0) return 'unknown';
  return checked;
}
