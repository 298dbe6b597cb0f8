import type { NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';

/** Raft §5.2, Figure 3: "Election Safety: at most one leader can be elected in a given term." */
export class ElectionSafetyChecker {
  private readonly leaderByTerm = new Map<number, NodeId>();

  /** Called whenever a node is seen in the leader role. */
  observeLeader(nodeId: NodeId, term: number): void {
    const known = this.leaderByTerm.get(term);
    if (known === undefined) this.leaderByTerm.set(term, nodeId);
    else if (known !== nodeId) {
      throw new InvariantViolationError(
        'electionSafety',
        `nodes ${known} and ${nodeId} are both leader of term ${term}`,
      );
    }
  }
}
