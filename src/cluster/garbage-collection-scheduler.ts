/**
 * Runs the MVCC store's garbage collection a step at a time inside the Ready loop (so it never
 * interleaves with an apply or a snapshot install), one step in flight at most, and not at all on
 * a node that has applied nothing since its last full pass.
 */
import type { Logger } from 'pino';
import type { StateStore } from './state-store.js';

export interface GarbageCollectionSchedulerParts {
  readonly logger: Logger;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly isStopping: () => boolean;
  readonly runInLoop: (task: () => Promise<void>) => Promise<void>;
}

export class GarbageCollectionScheduler {
  private isCollecting = false;
  /** The applied index when the last full collection pass ended: an idle node stops scanning. */
  private passAppliedIndex = -1;

  constructor(private readonly parts: GarbageCollectionSchedulerParts) {}

  /** Queues one collection step unless one is queued, the node stops, or nothing changed. */
  maybeSchedule(): void {
    if (this.isCollecting || this.parts.isStopping() || this.passAppliedIndex === this.parts.state().appliedIndex)
      return;
    this.isCollecting = true;
    this.parts
      .runInLoop(async () => {
        const state = this.parts.state();
        const appliedIndex = state.appliedIndex;
        const report = await state.mvcc.collectGarbage();
        if (report.isPassComplete) this.passAppliedIndex = appliedIndex;
      })
      .catch((error: unknown) => this.parts.logger.warn({ err: error }, 'garbage collection step failed'))
      .finally(() => (this.isCollecting = false));
  }
}
