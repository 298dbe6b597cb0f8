/**
 * Membership changes and leadership transfer, callable on any node: a follower forwards the
 * request to the leader over gRPC. A new member joins as a learner and is promoted to voter by the
 * leader once it has acknowledged the leader's log and answers it (learner-promotion.ts); a
 * learner that never answers (a wrong address, a machine not up yet) stays a learner, counts for
 * nothing, and can be removed. Removing the leader first hands leadership to the most caught-up
 * voter.
 */
import { delay } from '../base/delay.js';
import { isRetryable } from '../base/errors.js';
import { raftLimits } from '../base/limits.js';
import type { Scheduler } from '../base/scheduler.js';
import type { raftq } from '../gen/proto.js';
import { ConfChangeInvalidError, ProposalDroppedError } from '../raft/errors.js';
import type { Logger } from 'pino';
import type { RaftStatus } from '../raft/raw-node.js';
import type { ConfChange, ConfState } from '../raft/types.js';
import { MembershipChangeError } from './errors.js';
import { handOffTarget } from './hand-off-target.js';
import type { GrpcTransport } from './grpc-transport.js';
import { LearnerPromotion } from './learner-promotion.js';
import type { Membership } from './level-log-store.js';
import { parseHostPort, type NodeConfig } from './node-config.js';

/** How long a membership call waits for its change to apply (and a learner to be promoted). */
const membershipChangeTimeoutMs = 30_000;
const nodeIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;
const utf8 = new TextEncoder();

export type MemberAddStatus = 'voter' | 'learner';

/** What membership administration needs of its node. */
export interface MembershipAdminParts {
  readonly nodeId: string;
  readonly config: Pick<NodeConfig, 'groupId' | 'electionTimeoutTicks' | 'tickMs'>;
  readonly logger: Logger;
  /** The host clock in ms (not the cluster clock). */
  readonly wallMs: () => number;
  readonly isLeader: () => boolean;
  /** The leader this node believes in now, or ''. */
  readonly leaderId: () => string;
  readonly waitForLeader: (timeoutMs: number) => Promise<string>;
  /** Called on every change of leader, role or membership. */
  readonly onLeadershipChange: (listener: () => void) => () => void;
  readonly raftStatus: () => RaftStatus;
  /** The core's configuration now. */
  readonly confState: () => ConfState;
  /** The applied configuration with every member's address. */
  readonly membership: () => Membership;
  /** Runs `task` inside the Ready loop; resolves with its result. */
  readonly runInLoop: <T>(task: () => Promise<T> | T) => Promise<T>;
  /** Loop only. */
  readonly proposeConfChange: (change: ConfChange) => void;
  /** Loop only. */
  readonly transferLeaderTo: (target: string) => void;
  readonly callPeer: GrpcTransport['call'];
  /** The node's timers and monotonic clock (the runtime's): deadlines and re-checks run on it. */
  readonly scheduler: Scheduler;
}

/** How many election timeouts back a learner's last answer still counts as recent. */
const learnerRecentElectionTimeouts = 3;

export class MembershipAdmin {
  private readonly promotion: LearnerPromotion;

  constructor(private readonly parts: MembershipAdminParts) {
    const { config } = parts;
    this.promotion = new LearnerPromotion({
      // The host clock, uncorrected: the window measures time on this node only.
      clock: { nowMs: () => parts.wallMs() },
      recentWindowMs: learnerRecentElectionTimeouts * config.electionTimeoutTicks * config.tickMs,
      catchUpEntries: raftLimits.learnerCatchUpEntries.value,
    });
  }

  /** A peer answered this node's appends or heartbeats (what tells the leader a learner is there). */
  peerAnswered(peerId: string): void {
    this.promotion.heardFrom(peerId);
  }

  /** How long ago `peerId` last answered this node's appends or heartbeats; null: never. */
  peerLastHeardAgoMs(peerId: string): number | null {
    return this.promotion.lastHeardAgoMs(peerId);
  }

  async addMember(nodeId: string, raftAddress: string): Promise<MemberAddStatus> {
    if (!nodeIdPattern.test(nodeId))
      throw new MembershipChangeError(`add ${nodeId}`, 'node ids are 1-64 of [A-Za-z0-9_.-]');
    parseHostPort('address', raftAddress);
    if (!this.parts.isLeader()) {
      const answer = await this.forward('addMember', { groupId: this.parts.config.groupId, nodeId, raftAddress });
      return answer.error === 'learner' ? 'learner' : 'voter';
    }
    const deadlineMs = this.parts.scheduler.monotonicMs() + membershipChangeTimeoutMs;
    const isMember = (): boolean => {
      const conf = this.parts.confState();
      return conf.voters.includes(nodeId) || conf.learners.includes(nodeId);
    };
    if (!isMember()) {
      // It receives a snapshot, not the log from index 1: snapshot-taker.ts compacts index 1 away.
      await this.propose({ kind: 'addLearner', nodeId, context: utf8.encode(raftAddress) }, deadlineMs);
      await this.until(isMember, deadlineMs);
      this.parts.logger.info({ nodeId, raftAddress }, 'added a learner; it becomes a voter once caught up');
    }
    const isVoter = (): boolean => this.parts.confState().voters.includes(nodeId);
    if (await this.until(isVoter, deadlineMs)) return 'voter';
    const wait = this.learnerWait(nodeId);
    this.parts.logger.warn(
      { nodeId, raftAddress, ...wait },
      'the new member has not caught up: it stays a learner (counting for nothing) until it has; if its address is wrong, remove it with raftq members remove',
    );
    return 'learner';
  }

  /**
   * Removes `nodeId`, or answers that it is not a member, only as the leader sees it: an operator
   * wipes a node once its removal is confirmed, so the answer must come from the configuration the
   * cluster committed. A follower's may lag, and a node that is not a member itself (a joiner, or
   * one whose membership record was lost) knows none: answering "not a member" from it once let a
   * real member's data be wiped.
   */
  async removeMember(nodeId: string): Promise<void> {
    if (!this.parts.isLeader()) {
      await this.forward('removeMember', { groupId: this.parts.config.groupId, nodeId });
      return;
    }
    const conf = this.parts.confState();
    if (!conf.voters.includes(nodeId) && !conf.learners.includes(nodeId)) return;
    const deadlineMs = this.parts.scheduler.monotonicMs() + membershipChangeTimeoutMs;
    if (nodeId === this.parts.nodeId) {
      await this.handOffLeadership(deadlineMs);
      if (this.parts.isLeader())
        throw new MembershipChangeError(`remove ${nodeId}`, 'the leader could not hand leadership over first', {
          isRetryable: true,
        });
      await this.forward('removeMember', { groupId: this.parts.config.groupId, nodeId });
      return;
    }
    await this.propose({ kind: 'removeNode', nodeId, context: new Uint8Array(0) }, deadlineMs);
    const isGone = (): boolean => {
      const now = this.parts.confState();
      return !now.voters.includes(nodeId) && !now.learners.includes(nodeId);
    };
    if (!(await this.until(isGone, deadlineMs)))
      throw new MembershipChangeError(`remove ${nodeId}`, 'the change was not applied in time', { isRetryable: true });
    this.parts.logger.info({ nodeId }, 'removed a member');
  }

  async transferLeader(nodeId: string): Promise<void> {
    if (!this.parts.confState().voters.includes(nodeId))
      throw new MembershipChangeError(`transfer leadership to ${nodeId}`, 'it is not a voter');
    if (this.parts.leaderId() === nodeId) return;
    if (!this.parts.isLeader()) {
      await this.forward('transferLeader', { groupId: this.parts.config.groupId, nodeId });
      return;
    }
    const deadlineMs = this.parts.scheduler.monotonicMs() + this.transferTimeoutMs();
    await this.parts.runInLoop(() => this.parts.transferLeaderTo(nodeId));
    if (!(await this.until(() => this.parts.leaderId() === nodeId, deadlineMs))) {
      throw new MembershipChangeError(`transfer leadership to ${nodeId}`, 'it did not take over in time', {
        isRetryable: true,
      });
    }
    this.parts.logger.info({ nodeId }, 'transferred leadership');
  }

  /** Leader only: hand leadership to another voter (handOffTarget) and wait for it to take over, until `deadlineMs` (on the scheduler's monotonic clock). */
  async handOffLeadership(deadlineMs: number): Promise<void> {
    const status = this.parts.raftStatus();
    if (status.role !== 'leader') return;
    const target = handOffTarget(status.confState.voters, status.progress, this.parts.nodeId);
    if (target === null) return;
    this.parts.logger.info({ target }, 'handing leadership over');
    await this.parts.runInLoop(() => this.parts.transferLeaderTo(target));
    await this.until(
      () => !this.parts.isLeader(),
      Math.min(deadlineMs, this.parts.scheduler.monotonicMs() + this.transferTimeoutMs()),
    );
  }

  /** Leader, in the loop: promote the first learner that has caught up and answers (learner-promotion.ts). */
  maybePromoteLearner(): void {
    const status = this.parts.raftStatus();
    if (status.role !== 'leader') return;
    const candidate = this.promotion.nextToPromote(status);
    if (candidate === null) return;
    const address = this.parts.membership().addresses[candidate.nodeId] ?? '';
    try {
      this.parts.proposeConfChange({ kind: 'addVoter', nodeId: candidate.nodeId, context: utf8.encode(address) });
      this.parts.logger.info({ ...candidate, lastIndex: status.lastIndex }, 'promoting a caught-up learner to voter');
    } catch (error) {
      if (!(error instanceof ProposalDroppedError)) throw error;
    }
  }

  /** Leader: what learner `nodeId` still lacks to be promoted (its match, target and last answer); {} elsewhere. */
  private learnerWait(nodeId: string): { match?: number; targetIndex?: number; lastHeardAgoMs?: number | null } {
    const status = this.parts.raftStatus();
    if (status.role !== 'leader') return {};
    const wait = this.promotion.learners(status).find((learner) => learner.nodeId === nodeId);
    return wait === undefined
      ? {}
      : { match: wait.match, targetIndex: wait.targetIndex, lastHeardAgoMs: wait.lastHeardAgoMs };
  }

  /** Runs a membership call for a gRPC handler, as a MembershipResponse. */
  async serve(call: () => Promise<MemberAddStatus | void>): Promise<raftq.cluster.MembershipResponse.$Properties> {
    try {
      const status = await call();
      return { isAccepted: true, leaderHint: this.parts.leaderId(), error: status === 'learner' ? 'learner' : '' };
    } catch (error) {
      return {
        isAccepted: false,
        leaderHint: this.parts.leaderId(),
        error: error instanceof Error ? error.message : String(error),
        isRetryable: isRetryable(error),
      };
    }
  }

  private transferTimeoutMs(): number {
    return this.parts.config.electionTimeoutTicks * this.parts.config.tickMs * 4;
  }

  private async forward(
    method: 'addMember' | 'removeMember' | 'transferLeader',
    request: raftq.cluster.AddMemberRequest.$Properties & raftq.cluster.RemoveMemberRequest.$Properties,
  ): Promise<raftq.cluster.MembershipResponse> {
    const leader = await this.parts.waitForLeader(raftLimits.leaderWaitMs.value);
    const answer = await this.parts.callPeer(leader, method, request as never, membershipChangeTimeoutMs + 5_000);
    if (!answer.isAccepted)
      throw new MembershipChangeError(method, answer.error || `refused by ${leader}`, {
        isRetryable: answer.isRetryable === true,
      });
    return answer;
  }

  private async propose(change: ConfChange, deadlineMs: number): Promise<void> {
    for (;;) {
      try {
        await this.parts.runInLoop(() => this.parts.proposeConfChange(change));
        return;
      } catch (error) {
        if (error instanceof ConfChangeInvalidError)
          throw new MembershipChangeError(`${change.kind} ${change.nodeId}`, error.why, { cause: error });
        if (!(error instanceof ProposalDroppedError)) throw error;
        if (error.reason === 'notLeader' || this.parts.scheduler.monotonicMs() >= deadlineMs)
          throw new MembershipChangeError(`${change.kind} ${change.nodeId}`, error.message, {
            cause: error,
            isRetryable: true,
          });
        // Another change is still applying, or the new leader has not committed in its term yet.
        await delay(100, this.parts.scheduler);
      }
    }
  }

  /** Waits until `predicate` holds (re-checked on every leadership or membership change and every 100 ms). */
  private async until(predicate: () => boolean, deadlineMs: number): Promise<boolean> {
    while (!predicate()) {
      const remainingMs = deadlineMs - this.parts.scheduler.monotonicMs();
      if (remainingMs <= 0) return false;
      await new Promise<void>((resolve) => {
        const cancelTimer = this.parts.scheduler.after(Math.min(100, remainingMs), done);
        const unsubscribe = this.parts.onLeadershipChange(done);
        function done(): void {
          cancelTimer();
          unsubscribe();
          resolve();
        }
      });
    }
    return true;
  }
}
