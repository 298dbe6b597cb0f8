import type { Workload } from '../workloads/workload.js';
import type { RunOptions } from './run-options.js';

export interface RunOnParts {
  /** Resolves after `ms` (the run's pause). */
  readonly pause: (ms: number) => Promise<void>;
  readonly nowMs: () => number;
  readonly log: (line: string) => void;
}

/**
 * Keeps the clients running (faults healed) until every workload has `opsPerWorkloadMin`
 * operations for its checkers, for at most `timeSeconds` more: a busy machine may not get there
 * on time, and a verdict on too few operations says little.
 */
export async function runOnUntilEnoughToCheck(
  workloads: readonly Pick<Workload, 'name' | 'opsToCheck'>[],
  options: Pick<RunOptions, 'opsPerWorkloadMin' | 'timeSeconds'>,
  { pause, nowMs, log }: RunOnParts,
): Promise<void> {
  const shortOf = (): string[] =>
    workloads.filter((w) => w.opsToCheck() < options.opsPerWorkloadMin).map((w) => `${w.name} ${w.opsToCheck()}`);
  log(`fewer than ${options.opsPerWorkloadMin} operations to check (${shortOf().join(', ')}): clients run on, healed`);
  const untilMs = nowMs() + options.timeSeconds * 1000;
  while (shortOf().length > 0 && nowMs() < untilMs) await pause(250);
  const short = shortOf();
  if (short.length > 0) log(`still short after ${options.timeSeconds} s more: ${short.join(', ')}`);
}
