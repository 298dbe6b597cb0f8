import type { SeededPrng } from '../../src/base/prng.js';
import type { HistoryRecorder } from '../history/history-recorder.js';
import type { OperationPair } from '../history/operation-pairs.js';
import type { WorkloadReport } from '../report/run-results.js';
import type { SqsEndpoint } from './sqs-endpoint.js';

export interface WorkloadContext {
  readonly recorder: HistoryRecorder;
  /** One endpoint per node, through the client proxies. */
  readonly endpoints: readonly SqsEndpoint[];
  readonly prng: SeededPrng;
  /** False once the run's fault phase is over: workers finish their current operation and stop. */
  readonly isRunning: () => boolean;
  /** Resolves after `ms`, or at once when the run stops. */
  readonly pause: (ms: number) => Promise<void>;
  readonly nowMs: () => number;
}

export interface CheckContext {
  readonly clockAllowanceMs: number;
  readonly nowMs: () => number;
}

/**
 * A workload: creates its queues, runs its clients while the nemesis works, drains what is left
 * once the cluster is healed, and checks its part of the history.
 */
export interface Workload {
  readonly name: string;
  setup(endpoints: readonly SqsEndpoint[]): Promise<void>;
  run(ctx: WorkloadContext): Promise<void>;
  drain(ctx: WorkloadContext, deadlineMs: number): Promise<{ isEmpty: boolean; received: number }>;
  check(pairs: readonly OperationPair[], ctx: CheckContext): WorkloadReport;
  /**
   * How much its checkers have to go on so far: the smallest of the counts they check (for a queue,
   * acknowledged sends and delivered messages; for the metadata register, completed operations).
   */
  opsToCheck(): number;
}
