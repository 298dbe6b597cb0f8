import { assert } from '../base/assert.js';
import { Progress } from './progress.js';
import type { ConfChange, ConfState, NodeId } from './types.js';

export type VoteResult = 'won' | 'lost' | 'pending';

export interface ProgressLimits {
  readonly inflightMessagesMax: number;
  readonly inflightBytesMax: number;
}

/**
 * The configuration (voters and learners) and, on the leader, the replication progress of every
 * member; during an election, the votes received. Quorums are majorities of the voters only:
 * learners receive the log but never count, for commit or for election.
 */
export class ProgressTracker {
  readonly progress = new Map<NodeId, Progress>();
  private readonly voters = new Set<NodeId>();
  private readonly learners = new Set<NodeId>();
  private readonly votes = new Map<NodeId, boolean>();
  /** Caches of the sorted ids, dropped whenever membership changes. */
  private sortedMemberIds: NodeId[] | null = null;
  private sortedVoterIds: NodeId[] | null = null;
  private readonly matchScratch: number[] = [];

  constructor(
    confState: ConfState,
    nextIndex: number,
    private readonly limits: ProgressLimits,
  ) {
    for (const id of confState.voters) this.addMember(id, { isLearner: false, nextIndex });
    for (const id of confState.learners) {
      assert(!this.voters.has(id), () => `${id} is both voter and learner`);
      this.addMember(id, { isLearner: true, nextIndex });
    }
  }

  confState(): ConfState {
    return { voters: [...this.voters].sort(), learners: [...this.learners].sort() };
  }

  isVoter(id: NodeId): boolean {
    return this.voters.has(id);
  }

  isLearner(id: NodeId): boolean {
    return this.learners.has(id);
  }

  isMember(id: NodeId): boolean {
    return this.progress.has(id);
  }

  voterCount(): number {
    return this.voters.size;
  }

  /** Every member, sorted, so that broadcasts are in a stable order. Do not modify. */
  memberIds(): readonly NodeId[] {
    this.sortedMemberIds ??= [...this.progress.keys()].sort();
    return this.sortedMemberIds;
  }

  /** Every voter, sorted. Do not modify. */
  voterIds(): readonly NodeId[] {
    this.sortedVoterIds ??= [...this.voters].sort();
    return this.sortedVoterIds;
  }

  quorum(): number {
    return Math.floor(this.voters.size / 2) + 1;
  }

  /** The highest index replicated on a majority of voters (0 without voters). */
  committedIndex(): number {
    const voters = this.voterIds();
    if (voters.length === 0) return 0;
    const matches = this.matchScratch;
    matches.length = voters.length;
    for (let i = 0; i < voters.length; i++) matches[i] = (this.progress.get(voters[i] as NodeId) as Progress).match;
    matches.sort((a, b) => b - a);
    return matches[this.quorum() - 1] as number;
  }

  /** Records the first answer of each voter in this election; later duplicates are ignored. */
  recordVote(id: NodeId, isGranted: boolean): void {
    if (!this.votes.has(id)) this.votes.set(id, isGranted);
  }

  tallyVotes(): { granted: number; rejected: number; result: VoteResult } {
    let granted = 0;
    let rejected = 0;
    for (const id of this.voters) {
      const vote = this.votes.get(id);
      if (vote === true) granted++;
      else if (vote === false) rejected++;
    }
    const quorum = this.quorum();
    const missing = this.voters.size - granted - rejected;
    const result: VoteResult =
      this.voters.size > 0 && granted >= quorum ? 'won' : granted + missing < quorum ? 'lost' : 'pending';
    return { granted, rejected, result };
  }

  resetVotes(): void {
    this.votes.clear();
  }

  /** CheckQuorum: did a majority of voters (counting `selfId`) talk to the leader lately? */
  isQuorumActive(selfId: NodeId): boolean {
    let active = 0;
    for (const id of this.voters) {
      if (id === selfId || (this.progress.get(id) as Progress).isRecentlyActive) active++;
    }
    return active >= this.quorum();
  }

  /** Applies one single-server change; validation is the proposer's job (see membership.ts). */
  applyConfChange(change: ConfChange, nextIndex: number): void {
    const id = change.nodeId;
    this.sortedMemberIds = null;
    this.sortedVoterIds = null;
    switch (change.kind) {
      case 'addVoter': {
        this.learners.delete(id);
        this.voters.add(id);
        const existing = this.progress.get(id);
        if (existing === undefined) this.addMember(id, { isLearner: false, nextIndex });
        else existing.isLearner = false;
        return;
      }
      case 'addLearner': {
        // Demoting a voter is not a single-server change; membership.ts refuses it.
        if (this.voters.has(id)) return;
        if (!this.progress.has(id)) this.addMember(id, { isLearner: true, nextIndex });
        return;
      }
      case 'removeNode':
        this.voters.delete(id);
        this.learners.delete(id);
        this.progress.delete(id);
        this.votes.delete(id);
        return;
    }
  }

  /**
   * A new leader forgets what its predecessor knew: every follower is probed from the end of the
   * leader's log; the leader's own match is what it has made durable.
   */
  resetProgress(options: { nextIndex: number; selfId: NodeId; selfMatch: number }): void {
    for (const [id, progress] of this.progress) {
      const fresh = new Progress(options.nextIndex, progress.isLearner, this.limits);
      if (id === options.selfId) fresh.match = options.selfMatch;
      this.progress.set(id, fresh);
    }
  }

  private addMember(id: NodeId, options: { isLearner: boolean; nextIndex: number }): void {
    this.sortedMemberIds = null;
    this.sortedVoterIds = null;
    if (options.isLearner) this.learners.add(id);
    else this.voters.add(id);
    const progress = new Progress(options.nextIndex, options.isLearner, this.limits);
    // A member just added gets one CheckQuorum round of grace before it counts as silent.
    progress.isRecentlyActive = true;
    this.progress.set(id, progress);
  }
}
