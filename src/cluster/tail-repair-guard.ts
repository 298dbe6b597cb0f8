/**
 * Keeps a node whose Raft log lost its tail from voting until it holds again everything it may
 * have acknowledged. Entries a follower fsynced and acknowledged count toward commit; if the disk
 * lost them, the node's log may now be shorter than a committed entry it helped commit, and a vote
 * it grants from that log could elect a leader without the entry (Raft §5.4.1's argument needs
 * every voter of the commit quorum to still hold it). So while repairing, the node:
 * - grants no vote or pre-vote (the requests are dropped unanswered) and never campaigns (its
 *   election timer is not ticked, and a leader's TimeoutNow is dropped);
 * - still accepts and acknowledges appends: what it persists now is durable again.
 * It is repaired once it has heard from a leader, holds every entry up to the highest commit index
 * that leader sent it (at least the commit index it had recorded itself), and two election
 * timeouts have passed since the start, so that an acknowledgement sent before the damage can no
 * longer be counted by a leader that has not yet told it about that commit.
 * Pure bookkeeping: the node feeds it messages, ticks and its log's last index.
 */
import { MessageType, type RaftMessage } from '../raft/types.js';
import type { LogTailRepair } from './log-tail-repair.js';

export type TailRepairState = 'intact' | 'repairing' | 'repaired';

export class TailRepairGuard {
  private stateValue: TailRepairState;
  private leaderCommitSeen = 0;
  private ticksSinceStart = 0;

  constructor(
    readonly repair: LogTailRepair | null,
    private readonly settleTicks: number,
  ) {
    this.stateValue = repair === null ? 'intact' : 'repairing';
  }

  get state(): TailRepairState {
    return this.stateValue;
  }

  get isRepairing(): boolean {
    return this.stateValue === 'repairing';
  }

  /** The highest commit index a leader has sent since the start (0 before any). */
  get leaderCommitIndexSeen(): number {
    return this.leaderCommitSeen;
  }

  /** Gives up on repairing: a node that is its configuration's only voter has no one to repair from. */
  waive(): void {
    if (this.stateValue === 'repairing') this.stateValue = 'repaired';
  }

  /**
   * What to step into the core for `message`, or null to drop it. A heartbeat's commit index is
   * kept within `lastIndex`: a leader that still believes the follower holds entries it lost
   * would otherwise make it commit past its log's end.
   */
  admit(message: RaftMessage, lastIndex: number): RaftMessage | null {
    if (message.type === MessageType.App || message.type === MessageType.Heartbeat) {
      this.leaderCommitSeen = Math.max(this.leaderCommitSeen, message.commit);
      if (message.type === MessageType.Heartbeat && message.commit > lastIndex)
        return { ...message, commit: lastIndex };
      return message;
    }
    if (this.stateValue !== 'repairing') return message;
    if (
      message.type === MessageType.Vote ||
      message.type === MessageType.PreVote ||
      message.type === MessageType.TimeoutNow
    )
      return null;
    return message;
  }

  /** Counts a tick; returns whether the core may tick (not while repairing: it must not campaign). */
  tick(): boolean {
    this.ticksSinceStart++;
    return this.stateValue !== 'repairing';
  }

  /** Ends the repair when its conditions hold; returns true only on the call that ended it. */
  maybeFinish(input: { readonly lastIndex: number; readonly leader: string }): boolean {
    if (this.stateValue !== 'repairing' || this.repair === null) return false;
    if (input.leader === '' || this.ticksSinceStart < this.settleTicks) return false;
    const target = Math.max(this.leaderCommitSeen, this.repair.commitIndexBefore);
    if (this.leaderCommitSeen === 0 || input.lastIndex < target) return false;
    this.stateValue = 'repaired';
    return true;
  }
}
