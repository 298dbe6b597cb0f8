/**
 * A follower applies committed entries a few at a time instead of one Ready at a time.
 *
 * Under load a follower receives about one entry per replication cycle and, applying each Ready's
 * entries at once, pays an apply step's fixed cost (the look-ups, one engine batch, the state
 * observers and gauges) for every entry. Nothing waits on a follower's apply in the common case:
 * forwarded operations are answered by the leader once it applied them, and the entries are
 * durable in the follower's log, so a crash before they are applied replays them. So a follower
 * holds committed entries back until `entriesMin` are pending or the first has waited
 * `delayMsMax`, and applies them as one step (three nodes, produce batch 1: three times the
 * transactions per apply step and 4–10 % less CPU per transaction, docs/BENCHMARKS.md).
 *
 * Holding back is only allowed when nothing needs the state now (ReadyLoopTurn decides): a
 * leader, a candidate, a node without a known leader, a Ready with a snapshot, read states or a
 * membership change, and anyone waiting for an applied index all apply at once, together with
 * whatever was held back.
 */
import type { Scheduler } from '../base/scheduler.js';
import { EntryType, type Entry } from '../raft/types.js';

/** What decides whether a follower may hold committed entries back now. */
export interface ApplyHoldBackConditions {
  /** A follower (or learner) of a known leader: not leading, not campaigning. */
  readonly isFollowing: boolean;
  /** Someone waits for this node's applied index (a read). */
  readonly isApplyAwaited: boolean;
  /** The Ready at hand installs a snapshot (false between Readys). */
  readonly hasSnapshot: boolean;
  /** The Ready at hand completes reads (false between Readys). */
  readonly hasReadStates: boolean;
}

/** Only a follower that nobody waits on, in a Ready without a snapshot or reads, holds back. */
export function mayHoldBackApply(conditions: ApplyHoldBackConditions): boolean {
  return conditions.isFollowing && !conditions.isApplyAwaited && !conditions.hasSnapshot && !conditions.hasReadStates;
}

export interface FollowerApplyPacingParts {
  readonly scheduler: Scheduler;
  /** Pending entries at which they are applied at once. */
  readonly entriesMin: number;
  /** Longest a committed entry is held back, in ms: a Ready loop turn after that applies it. */
  readonly delayMsMax: number;
  /** Wakes the Ready loop (a turn applies what is due). */
  readonly kick: () => void;
}

export class FollowerApplyPacing {
  private pending: Entry[] = [];
  private firstPendingAtMs = 0;
  private cancelWake: (() => void) | null = null;

  constructor(private readonly parts: FollowerApplyPacingParts) {}

  /** Committed entries held back, not yet applied. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Takes a Ready's committed entries; returns what to apply now, in log order: nothing while they
   * may wait, otherwise everything held back and these.
   */
  take(committed: readonly Entry[], mayHoldBack: boolean): readonly Entry[] {
    if (committed.length === 0 && this.pending.length === 0) return committed;
    if (!mayHoldBack || committed.some((entry) => entry.type === EntryType.ConfChange)) return this.release(committed);
    if (this.pending.length === 0) {
      this.firstPendingAtMs = this.parts.scheduler.monotonicMs();
      // One wake-up for when the first entry is due: the scheduler never runs it before delayMsMax
      // has passed on monotonicMs (SystemScheduler.after), so the turn it wakes finds them due.
      this.cancelWake = this.parts.scheduler.after(this.parts.delayMsMax, this.parts.kick);
    }
    for (const entry of committed) this.pending.push(entry);
    return this.isDue() ? this.release([]) : [];
  }

  /** What was held back, if the first of it has waited long enough (or `mayHoldBack` is false); else nothing. */
  takeDue(mayHoldBack: boolean): readonly Entry[] {
    if (this.pending.length === 0) return [];
    return !mayHoldBack || this.isDue() ? this.release([]) : [];
  }

  private isDue(): boolean {
    return (
      this.pending.length >= this.parts.entriesMin ||
      this.parts.scheduler.monotonicMs() - this.firstPendingAtMs >= this.parts.delayMsMax
    );
  }

  private release(committed: readonly Entry[]): readonly Entry[] {
    if (this.pending.length === 0) return committed;
    const entries = this.pending;
    for (const entry of committed) entries.push(entry);
    this.pending = [];
    this.cancelWake?.();
    this.cancelWake = null;
    return entries;
  }
}
