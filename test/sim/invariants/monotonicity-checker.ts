import type { NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';

/** The durable progress of a node: what a restart starts from. */
export interface DurableProgress {
  readonly term: number;
  readonly commit: number;
  readonly applied: number;
}

/**
 * Durable state never goes back: a node's persisted term, commit index and applied index only
 * grow, across restarts too. A node that forgot its term could vote twice in it; one that forgot
 * its commit or applied index could apply a different entry where it already applied one.
 */
export class MonotonicityChecker {
  private readonly highest = new Map<NodeId, DurableProgress>();

  observeDurable(nodeId: NodeId, progress: DurableProgress, when: string): void {
    const before = this.highest.get(nodeId);
    if (before !== undefined) {
      for (const field of ['term', 'commit', 'applied'] as const) {
        if (progress[field] < before[field]) {
          throw new InvariantViolationError(
            'monotonicity',
            `node ${nodeId}'s durable ${field} went back from ${before[field]} to ${progress[field]} ${when}`,
          );
        }
      }
    }
    this.highest.set(nodeId, progress);
  }
}
