// What the coordinator and a load worker process say to each other over IPC.
import type { DriverOptions } from './load-driver.js';

export interface WorkerJob {
  readonly driver: DriverOptions;
  /** End-to-end latency means something only when producers and consumers run together. */
  readonly recordsEndToEnd: boolean;
  /**
   * When producers and consumers run together: the most messages this worker's producers may be
   * ahead of its consumers. Without it, producers faster than consumers grow the queue for the
   * whole window and end-to-end latency measures the backlog, not the system.
   */
  readonly producerLeadMessagesMax: number | null;
  /** Record every operation (op-trace.ts) and return the records with the result. */
  readonly isOpTraced: boolean;
}

export type ToWorker =
  | { readonly type: 'job'; readonly job: WorkerJob }
  /** Start the slots; operations that complete at or after windowStartMs (epoch), before the stop, are measured. */
  | { readonly type: 'start'; readonly windowStartMs: number }
  /** The warm-up ended early: operations that complete from windowStartMs on are measured. */
  | { readonly type: 'open-window'; readonly windowStartMs: number }
  /** The window is over: finish, report, exit. */
  | { readonly type: 'stop' };

export interface WorkerTotals {
  readonly produced: number;
  readonly consumed: number;
  readonly errors: number;
}

export interface WorkerResult extends WorkerTotals {
  readonly producedInWindow: number;
  readonly consumedInWindow: number;
  readonly emptyReceives: number;
  readonly firstError?: string;
  /** Encoded HDR histograms (µs) of the operations measured in the window. */
  readonly produceHistogram: string;
  readonly consumeHistogram: string;
  readonly endToEndHistogram: string;
  /** This process's CPU (user + system) from the window's start to the stop. */
  readonly clientCpuMicros: number;
  /** Every operation this worker completed, as op-trace.ts lines, when the job asked for them. */
  readonly opTraceLines?: readonly string[];
}

export type FromWorker =
  | { readonly type: 'ready' }
  | ({ readonly type: 'progress' } & WorkerTotals)
  | { readonly type: 'result'; readonly result: WorkerResult }
  | { readonly type: 'failed'; readonly error: string };
