import type { Entry, NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';

interface AppliedAt {
  readonly nodeId: NodeId;
  readonly term: number | null;
  /** Digest of the applier's whole history up to and including this index. */
  readonly digest: string;
}

/**
 * Raft §5.4.3, Figure 3: "State Machine Safety: if a server has applied a log entry at a given
 * index to its state machine, no other server will ever apply a different log entry for the same
 * index." Checked on the chained digest of applied history, so a difference anywhere below an
 * index shows at that index too; and each node must apply indexes one after another.
 */
export class StateMachineSafetyChecker {
  private readonly appliedByIndex = new Map<number, AppliedAt>();

  /** `nodeId`, having applied up to `appliedBefore`, applied `entry`; its digest is now `digestAfter`. */
  observeApply(nodeId: NodeId, appliedBefore: number, entry: Entry, digestAfter: string): void {
    if (entry.index !== appliedBefore + 1) {
      throw new InvariantViolationError(
        'stateMachineSafety',
        `node ${nodeId} applied index ${entry.index} right after index ${appliedBefore}`,
      );
    }
    this.compare(nodeId, entry.index, entry.term, digestAfter);
  }

  /** `nodeId` replaced its state by a snapshot's, which claims this digest at `index`. */
  observeRestore(nodeId: NodeId, index: number, digest: string): void {
    if (index > 0) this.compare(nodeId, index, null, digest);
  }

  private compare(nodeId: NodeId, index: number, term: number | null, digest: string): void {
    const known = this.appliedByIndex.get(index);
    if (known === undefined) {
      this.appliedByIndex.set(index, { nodeId, term, digest });
      return;
    }
    if (known.digest !== digest) {
      const terms = known.term !== null && term !== null ? ` (term ${known.term} there, now term ${term})` : '';
      throw new InvariantViolationError(
        'stateMachineSafety',
        `node ${nodeId} applied a different history up to index ${index} than node ${known.nodeId}${terms}`,
      );
    }
  }
}
