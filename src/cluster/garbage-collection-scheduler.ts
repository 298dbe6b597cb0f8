/**
 * Runs the MVCC store's garbage collection a step at a time inside the Ready loop (so it never
 * interleaves with an apply or a snapshot install), one step in flight at most, and not at all on
 * a node that has applied nothing since its last full pass. Steps are small and frequent, since
 * the loop waits for each; a new pass rests garbageCollectionPassRestMs after the last one, so a
 * small keyspace is not rescanned at the steps' pace.
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
  readonly runInLoop: (task: () => Promise<void>) => Promise<void>;
  /** The node's monotonic clock, for the step's duration. */
  readonly monotonicMs: () => number;
  /** Hears how long each step held the loop, in seconds (raftq_state_gc_step_seconds). */
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
    this.parts
      .runInLoop(async () => {
        const state = this.parts.state();
        const appliedIndex = state.appliedIndex;
        const startedMs = this.parts.monotonicMs();
        const report = await state.mvcc.collectGarbage();
        this.parts.onStepSeconds((this.parts.monotonicMs() - startedMs) / 1000);
        if (report.isPassComplete) {
          this.passAppliedIndex = appliedIndex;
          this.offersToRest = passRestOffers;
        }
      })
      .catch((error: unknown) => this.parts.logger.warn({ err: error }, 'garbage collection step failed'))
      .finally(() => (this.isCollecting = false));
  }
}
