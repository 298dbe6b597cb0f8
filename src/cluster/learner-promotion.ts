/**
 * When the leader may make a learner a voter. A voter counts toward every quorum, so promoting a
 * member that is not there costs the cluster its fault tolerance, and a one-node cluster its
 * quorum at once (two voters, one of them silent). Being "within N entries of the leader's last
 * index" proves nothing on a young log, where a match index of 0 is within N of everything; so a
 * learner becomes a voter only once it has
 * - acknowledged the leader's log up to the catch-up target: the leader's last index when it first
 *   saw the learner in its term, which covers the conf change that added the learner (and is at
 *   least 1, so a match index of 0 never qualifies);
 * - stayed within `catchUpEntries` of the leader's last index, so that it can count at once;
 * - answered the leader recently: a message from it arrived within `recentWindowMs` of now, by the
 *   injected clock (a clock that went backwards makes every earlier answer old, never recent).
 * Until then it receives the log and counts for nothing. Pure bookkeeping: the node reports the
 * learners' answers and asks, on the leader, which learner is ready.
 */
import type { Clock } from '../base/clock.js';
import type { ConfState, NodeId } from '../raft/types.js';

/** What the rule reads of the leader's Raft status. */
export interface LeaderProgressView {
  readonly term: number;
  readonly lastIndex: number;
  readonly confState: ConfState;
  readonly progress: ReadonlyMap<NodeId, { readonly match: number }>;
}

export interface PromotionCandidate {
  readonly nodeId: NodeId;
  readonly match: number;
  readonly targetIndex: number;
  readonly lastHeardAgoMs: number;
}

/** Why a learner is not promoted yet, for status and logs. */
export interface LearnerWait {
  readonly nodeId: NodeId;
  readonly match: number;
  readonly targetIndex: number;
  /** How long ago it last answered; null: never (or not since the clock went backwards). */
  readonly lastHeardAgoMs: number | null;
}

export interface LearnerPromotionOptions {
  readonly clock: Clock;
  /** An answer older than this does not count as recent. */
  readonly recentWindowMs: number;
  /** The most entries the learner may lag behind the leader's last index when promoted. */
  readonly catchUpEntries: number;
}

export class LearnerPromotion {
  private readonly lastHeardAtMs = new Map<NodeId, number>();
  /** Catch-up target per learner, set when this leader first looked at it in `targetsTerm`. */
  private readonly targets = new Map<NodeId, number>();
  private targetsTerm = -1;

  constructor(private readonly options: LearnerPromotionOptions) {}

  /** A message from `peerId` arrived (an append or heartbeat response): it is there now. */
  heardFrom(peerId: NodeId): void {
    this.lastHeardAtMs.set(peerId, this.options.clock.nowMs());
  }

  /** How long ago `peerId` last answered, by the injected clock; null: never, or the clock went backwards. */
  lastHeardAgoMs(peerId: NodeId): number | null {
    const heardAtMs = this.lastHeardAtMs.get(peerId);
    const agoMs = heardAtMs === undefined ? null : this.options.clock.nowMs() - heardAtMs;
    return agoMs === null || agoMs < 0 ? null : agoMs;
  }

  /** Leader only: the first learner (in id order) that may become a voter now, or null. */
  nextToPromote(status: LeaderProgressView): PromotionCandidate | null {
    for (const wait of this.learners(status)) {
      if (this.isReady(wait, status))
        return {
          nodeId: wait.nodeId,
          match: wait.match,
          targetIndex: wait.targetIndex,
          lastHeardAgoMs: wait.lastHeardAgoMs as number,
        };
    }
    return null;
  }

  /** Leader only: every learner with what it still lacks (empty once all are promoted). */
  learners(status: LeaderProgressView): LearnerWait[] {
    this.refreshTargets(status);
    return status.confState.learners.map((nodeId) => ({
      nodeId,
      match: status.progress.get(nodeId)?.match ?? 0,
      targetIndex: this.targets.get(nodeId) as number,
      lastHeardAgoMs: this.lastHeardAgoMs(nodeId),
    }));
  }

  private isReady(wait: LearnerWait, status: LeaderProgressView): boolean {
    return (
      wait.match >= wait.targetIndex &&
      wait.match >= status.lastIndex - this.options.catchUpEntries &&
      wait.lastHeardAgoMs !== null &&
      wait.lastHeardAgoMs <= this.options.recentWindowMs
    );
  }

  /**
   * A new term means a new leader (or this one again, after losing it): its progress records
   * start over, and so do the targets. Members no longer learners drop out.
   */
  private refreshTargets(status: LeaderProgressView): void {
    if (status.term !== this.targetsTerm) {
      this.targets.clear();
      this.targetsTerm = status.term;
    }
    const learners = new Set(status.confState.learners);
    const voters = new Set(status.confState.voters);
    for (const id of [...this.targets.keys()]) if (!learners.has(id)) this.targets.delete(id);
    for (const id of [...this.lastHeardAtMs.keys()])
      if (!learners.has(id) && !voters.has(id)) this.lastHeardAtMs.delete(id);
    for (const id of learners) if (!this.targets.has(id)) this.targets.set(id, Math.max(1, status.lastIndex));
  }
}
