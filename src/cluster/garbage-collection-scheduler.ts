/**
 * Runs the MVCC store's garbage collection a step at a time, one step in flight at most, and not at
 * all on a node that has applied nothing since its last full pass. A step reads its rows and
 * decides what goes while applies go on (mvcc-store.ts, planGarbageStep, says why that is safe),
 * and removes them in the store's apply lock, so a removal never interleaves with an apply; an
 * apply due meanwhile waits for the removal batch, the rest of the Ready loop (log writes, sends)
 * does not. A snapshot install opens a new state database: a step planned on the old one is
 * dropped, and a removal that reaches the old one after it closed fails harmlessly. A new pass
 * rests garbageCollectionPassRestMs after the last one, so a small keyspace is not rescanned at
 * the steps' pace.
 *
 * The removal used to run inside the Ready loop: the loop then waited 5-15 ms a step, mostly for
 * the main thread to come back to the write's completion, while a node consumed (15 steps a
 * second), and every request in flight waited with it.
 */
import type { Logger } from 'pino';
import { raftLimits } from '../base/limits.js';
import type { StateStore } from './state-store.js';

/** Offers (maybeSchedule calls) skipped after a complete pass. */
const passRestOffers = Math.max(
  0,
  Math.ceil(raftLimits.garbageCollectionPassRestMs.value / raftLimits.garbageCollectionScheduleIntervalMs.value) - 1,
);

export interface GarbageCollectionSchedulerParts {
  readonly logger: Logger;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly isStopping: () => boolean;
  /** The node's monotonic clock, for the step's duration. */
  readonly monotonicMs: () => number;
  /** Hears how long each step's removal took, waiting for the apply lock included, in seconds (raftq_state_gc_step_seconds). */
  readonly onStepSeconds: (seconds: number) => void;
}

export class GarbageCollectionScheduler {
  private isCollecting = false;
  /** The applied index when the last full collection pass ended: an idle node stops scanning. */
  private passAppliedIndex = -1;
  private offersToRest = 0;

  constructor(private readonly parts: GarbageCollectionSchedulerParts) {}

  /** Queues one collection step unless one is queued, the node stops, a pass just ended, or nothing changed. */
  maybeSchedule(): void {
    if (this.offersToRest > 0) {
      this.offersToRest -= 1;
      return;
    }
    const state = this.parts.state();
    if (
      this.isCollecting ||
      this.parts.isStopping() ||
      this.passAppliedIndex === state.appliedIndex ||
      !state.mvcc.hasGarbageToCollect
    )
      return;
    this.isCollecting = true;
    const mvcc = state.mvcc;
    const appliedIndex = state.appliedIndex;
    mvcc
      .planGarbageStep()
      .then(async (plan) => {
        // A snapshot install replaced the state while the step read: its plan is of the old one.
        if (this.parts.state().mvcc !== mvcc) return;
        const startedMs = this.parts.monotonicMs();
        const report = await mvcc.finishGarbageStep(plan);
        this.parts.onStepSeconds((this.parts.monotonicMs() - startedMs) / 1000);
        if (report.kind === 'pass' && report.isPassComplete) {
          this.passAppliedIndex = appliedIndex;
          this.offersToRest = passRestOffers;
        }
      })
      .catch((error: unknown) => {
        // Reading a state that was closed under the step (install, shutdown) is not a failure.
        if (this.parts.isStopping() || this.parts.state().mvcc !== mvcc) return;
        this.parts.logger.warn({ err: error }, 'garbage collection step failed');
      })
      .finally(() => (this.isCollecting = false));
  }
}
