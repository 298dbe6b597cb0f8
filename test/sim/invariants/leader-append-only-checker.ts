import type { Entry, NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';

interface LeaderClaims {
  readonly term: number;
  /** index → term of the entry this leader said it holds there, in this term. */
  readonly termByIndex: Map<number, number>;
}

/**
 * Raft §5.3, Figure 3: "Leader Append-Only: a leader never overwrites or deletes entries in its
 * log; it only appends new entries." Seen from outside in two ways: what a leader says about its
 * log in the appends it sends (it must never contradict itself within a term), and what it writes
 * to its own storage while leader (only past its last index).
 */
export class LeaderAppendOnlyChecker {
  private readonly claimsByLeader = new Map<NodeId, LeaderClaims>();

  /** An append sent by `leaderId` in `term`: entry `prevIndex` has `prevTerm`, then `entries`. */
  observeAppendSent(
    leaderId: NodeId,
    term: number,
    prevIndex: number,
    prevTerm: number,
    entries: readonly Entry[],
  ): void {
    let claims = this.claimsByLeader.get(leaderId);
    if (claims === undefined || claims.term < term) {
      claims = { term, termByIndex: new Map() };
      this.claimsByLeader.set(leaderId, claims);
    } else if (claims.term > term) {
      return;
    }
    if (prevIndex > 0) this.claim(leaderId, claims, prevIndex, prevTerm);
    for (const entry of entries) this.claim(leaderId, claims, entry.index, entry.term);
  }

  private claim(leaderId: NodeId, claims: LeaderClaims, index: number, entryTerm: number): void {
    const earlier = claims.termByIndex.get(index);
    if (earlier === undefined) claims.termByIndex.set(index, entryTerm);
    else if (earlier !== entryTerm) {
      throw new InvariantViolationError(
        'leaderAppendOnly',
        `leader ${leaderId} of term ${claims.term} sent entry ${index} with term ${entryTerm}, after sending it with term ${earlier}`,
      );
    }
  }

  /**
   * A node wrote entries starting at `firstIndex` to a log that ended at `lastIndexBefore`, in a
   * Ready produced while it was leader of `term`: a leader's writes must all be appends.
   */
  observeLeaderWrite(leaderId: NodeId, term: number, firstIndex: number, lastIndexBefore: number): void {
    if (firstIndex <= lastIndexBefore) {
      throw new InvariantViolationError(
        'leaderAppendOnly',
        `leader ${leaderId} of term ${term} overwrote its log from index ${firstIndex} (its log ended at ${lastIndexBefore})`,
      );
    }
  }
}
