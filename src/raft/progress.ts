import { assert } from '../base/assert.js';
import { Inflights } from './inflights.js';

/**
 * How the leader replicates to one follower:
 * - probe: the leader does not know where the logs match; it sends one append at a time and
 *   waits for the answer (or the next heartbeat response) before sending another;
 * - replicate: the logs match up to `match`; the leader streams appends optimistically, bounded
 *   by the inflight window;
 * - snapshot: the follower needs entries the leader has compacted; the leader sent a snapshot
 *   and sends nothing else until the runtime reports how it went.
 */
export type ProgressState = 'probe' | 'replicate' | 'snapshot';

export class Progress {
  /** Highest index known to be replicated on the follower. */
  match = 0;
  /** Index of the next entry to send. */
  next: number;
  state: ProgressState = 'probe';
  /** In snapshot state: the index of the snapshot sent. */
  pendingSnapshot = 0;
  /** Heard from since the last CheckQuorum round. */
  isRecentlyActive = false;
  /** In probe state: an append is outstanding, so wait. */
  isProbeSent = false;
  readonly inflights: Inflights;

  constructor(
    next: number,
    public isLearner: boolean,
    limits: { inflightMessagesMax: number; inflightBytesMax: number },
  ) {
    this.next = next;
    this.inflights = new Inflights(limits.inflightMessagesMax, limits.inflightBytesMax);
  }

  becomeProbe(): void {
    // After a snapshot the follower has at least the snapshot's entries.
    this.next = this.state === 'snapshot' ? Math.max(this.match + 1, this.pendingSnapshot + 1) : this.match + 1;
    this.resetState('probe');
  }

  becomeReplicate(): void {
    this.next = this.match + 1;
    this.resetState('replicate');
  }

  becomeSnapshot(snapshotIndex: number): void {
    this.resetState('snapshot');
    this.pendingSnapshot = snapshotIndex;
  }

  /** The follower acknowledged `index`. Returns whether that was news. */
  maybeUpdate(index: number): boolean {
    let isUpdated = false;
    if (this.match < index) {
      this.match = index;
      isUpdated = true;
      this.isProbeSent = false;
    }
    this.next = Math.max(this.next, index + 1);
    return isUpdated;
  }

  /**
   * The follower rejected an append whose previous index was `rejected`, hinting that the logs
   * may match at `matchHint`. Returns false if the rejection is stale (an answer to an older
   * message), so that out-of-order responses never move `next` backwards twice.
   */
  maybeDecreaseTo(rejected: number, matchHint: number): boolean {
    if (this.state === 'replicate') {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    if (matchHint < this.match) {
      // The follower no longer holds entries it acknowledged: it found its log's tail damaged and
      // cut it back. Nothing above its hint is known to match now, so probe down from there.
      // Lowering match never lowers the commit index, which only moves forward.
      this.match = 0;
    }
    this.next = Math.max(Math.min(rejected, matchHint + 1), this.match + 1);
    this.isProbeSent = false;
    return true;
  }

  /** Records an append just sent, carrying entries up to `lastIndex` (none if count is 0). */
  sentEntries(count: number, lastIndex: number, sizeBytes: number): void {
    if (this.state === 'replicate') {
      if (count > 0) {
        assert(lastIndex >= this.next, 'sentEntries: replicate went backwards');
        this.next = lastIndex + 1;
        this.inflights.add(lastIndex, sizeBytes);
      }
    } else if (this.state === 'probe') {
      this.isProbeSent = true;
    } else {
      assert(false, 'sentEntries in snapshot state');
    }
  }

  isPaused(): boolean {
    switch (this.state) {
      case 'probe':
        return this.isProbeSent;
      case 'replicate':
        return this.inflights.isFull();
      case 'snapshot':
        return true;
    }
  }

  private resetState(state: ProgressState): void {
    this.state = state;
    this.isProbeSent = false;
    this.pendingSnapshot = 0;
    this.inflights.reset();
  }
}
