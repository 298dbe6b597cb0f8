import { assert } from '../base/assert.js';
import { readIndex } from './read-index.js';
import { leaderPersisted, reportSnapshotStatus, reportUnreachable } from './replication.js';
import { hup } from './election.js';
import { transferLeader } from './leader-transfer.js';
import { applyConfChange, proposeConfChange } from './membership.js';
import { Raft } from './raft.js';
import { type RaftConfig, validateRaftConfig } from './raft-config.js';
import { isLocalMessageType } from './raft-message.js';
import { type RaftStatus, raftStatus } from './raft-status.js';
import type { ConfChange, ConfState, HardState, NodeId, RaftMessage, Ready, SoftState } from './types.js';

export type { RaftConfig, RaftFaults } from './raft-config.js';
export type { RaftStatus, ProgressStatus } from './raft-status.js';

/**
 * The public face of the Raft core: feed it ticks, peer messages, proposals and reads; take a
 * Ready; do what it says in order (persist hardState, entries and snapshot in one synced write;
 * then send messages; then apply snapshot and committedEntries); then advance(). Pure and
 * synchronous: no I/O, timers or clock. One Ready at a time: ready() may not be called again
 * before advance(), though ticks, messages and proposals may be fed in between.
 */
export class RawNode {
  private readonly raft: Raft;
  private prevSoftState: SoftState;
  private prevHardState: HardState;
  private isReadyOutstanding = false;

  constructor(config: RaftConfig) {
    this.raft = new Raft(validateRaftConfig(config));
    this.prevSoftState = this.raft.softState();
    this.prevHardState = this.raft.hardState();
  }

  get id(): NodeId {
    return this.raft.id;
  }

  /** One unit of logical time: drives election timeouts, heartbeats and CheckQuorum. */
  tick(): void {
    this.raft.tick();
  }

  /** Starts an election now (a pre-election first when PreVote is on). */
  campaign(): void {
    hup(this.raft, { isTransfer: false });
  }

  /** A message from a peer. Messages not addressed to this node and local-only types are ignored. */
  step(message: RaftMessage): void {
    if (message.to !== this.raft.id || isLocalMessageType(message.type)) return;
    this.raft.step(message);
  }

  /** Appends `data` to the log. Throws ProposalDroppedError if this node cannot accept it now. */
  propose(data: Uint8Array): void {
    this.raft.propose(data);
  }

  /**
   * Proposes a membership change. Throws ProposalDroppedError (not leader, transfer in progress,
   * another change pending, no entry of this term committed yet, uncommitted bytes over limit)
   * or ConfChangeInvalidError (not expressible as a single-server change).
   */
  proposeConfChange(change: ConfChange): void {
    proposeConfChange(this.raft, change);
  }

  /** The runtime applied a ConfChange entry; returns the configuration now in force. */
  applyConfChange(change: ConfChange): ConfState {
    return applyConfChange(this.raft, change);
  }

  /** Hands leadership to `target` (a voter); forwarded to the leader when called on a follower. */
  transferLeader(target: NodeId): void {
    transferLeader(this.raft, target);
  }

  /**
   * Asks for a linearizable read point; the answer is a ReadState with the same requestCtx in a
   * later Ready (none if leadership changes first: the runtime times out and retries). Contexts
   * must be unique. Throws ReadIndexDroppedError when no leader is known.
   */
  readIndex(requestCtx: Uint8Array): void {
    readIndex(this.raft, requestCtx);
  }

  /** The runtime could not deliver to `peer`: stop pipelining to it. */
  reportUnreachable(peer: NodeId): void {
    reportUnreachable(this.raft, peer);
  }

  /** How sending a snapshot to `peer` ended. */
  reportSnapshot(peer: NodeId, status: 'finished' | 'failure'): void {
    reportSnapshotStatus(this.raft, peer, status);
  }

  hasReady(): boolean {
    if (this.isReadyOutstanding) return false;
    const r = this.raft;
    const softState = r.softState();
    return (
      softState.leader !== this.prevSoftState.leader ||
      softState.role !== this.prevSoftState.role ||
      !isHardStateEqual(r.hardState(), this.prevHardState) ||
      r.log.unstable.entries.length > 0 ||
      r.log.unstable.snapshot !== null ||
      r.messages.length > 0 ||
      r.readStates.length > 0 ||
      r.log.hasNextCommittedEntries()
    );
  }

  /**
   * What to do now. Taking it hands over its messages and read states (they are not returned
   * again); entries, snapshot and committed entries stay pending until advance(ready).
   */
  ready(): Ready {
    assert(!this.isReadyOutstanding, 'ready() called again before advance()');
    const r = this.raft;
    const softState = r.softState();
    const hardState = r.hardState();
    const isSoftStateChanged =
      softState.leader !== this.prevSoftState.leader || softState.role !== this.prevSoftState.role;
    const isHardStateChanged = !isHardStateEqual(hardState, this.prevHardState);
    const ready: Ready = {
      softState: isSoftStateChanged ? softState : null,
      hardState: isHardStateChanged ? hardState : null,
      entries: [...r.log.unstable.entries],
      snapshot: r.log.unstable.snapshot,
      committedEntries: r.log.nextCommittedEntries(),
      messages: r.messages,
      readStates: r.readStates,
    };
    r.messages = [];
    r.readStates = [];
    this.prevSoftState = softState;
    this.prevHardState = hardState;
    r.reduceUncommittedBytes(ready.committedEntries);
    this.isReadyOutstanding = true;
    return ready;
  }

  /** The runtime did everything `ready` asked: its entries and snapshot are durable and applied. */
  advance(ready: Ready): void {
    assert(this.isReadyOutstanding, 'advance() without an outstanding ready()');
    this.isReadyOutstanding = false;
    const log = this.raft.log;
    const lastEntry = ready.entries[ready.entries.length - 1];
    if (lastEntry !== undefined) log.stableTo(lastEntry.index, lastEntry.term);
    if (ready.snapshot !== null) {
      log.stableSnapTo(ready.snapshot.meta.index);
      if (ready.snapshot.meta.index > log.applied) log.appliedTo(ready.snapshot.meta.index);
    }
    const lastCommitted = ready.committedEntries[ready.committedEntries.length - 1];
    if (lastCommitted !== undefined) log.appliedTo(lastCommitted.index);
    leaderPersisted(this.raft);
  }

  status(): RaftStatus {
    return raftStatus(this.raft);
  }
}

function isHardStateEqual(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}
