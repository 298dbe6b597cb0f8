/**
 * One turn of the Ready loop, after the loop's queued tasks (cluster-node.ts runs the loop):
 *
 *   step a received snapshot in → propose what clients queued (many transactions per entry) →
 *   issue ReadIndex rounds → while the core has a Ready: install a received snapshot → persist
 *   hard state and entries (one synced batch) → send → apply committed entries (applied index in
 *   the same state batch) → answer reads → advance. Committed entries already durable here are
 *   applied while the Ready's own entries are written (see handleReady).
 *
 * Nothing is sent before what it depends on is durable (a leader's appends do not depend on its
 * own copy: see handleReady). A change of role or leader seen in a Ready moves the cluster clock's
 * reference, and a step-down fails what waited on this node's leadership.
 */
import type { Logger } from 'pino';
import type { Scheduler } from '../base/scheduler.js';
import type { RawNode } from '../raft/raw-node.js';
import { EntryType, MessageType, type Entry, type RaftMessage, type Ready, type SoftState } from '../raft/types.js';
import type { ClusterClock } from './cluster-clock.js';
import type { CommittedEntryApplier } from './committed-entry-applier.js';
import type { EntryProposer } from './entry-proposer.js';
import { mayHoldBackApply, type FollowerApplyPacing } from './follower-apply-pacing.js';
import { LeadershipLostError, NotLeaderError } from './errors.js';
import type { LeaderWatch } from './leader-watch.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeMetrics } from './node-metrics.js';
import type { NodeStatusReporter } from './node-status-reporter.js';
import type { NodeTransport } from './node-transport.js';
import type { OpStreamServer } from './op-stream-server.js';
import type { ReadIndexReader } from './read-index-reader.js';
import type { SnapshotReceiver } from './snapshot-receiver.js';
import type { SnapshotSender } from './snapshot-sender.js';
import type { SnapshotTaker } from './snapshot-taker.js';
import type { TxnWaiters } from './txn-waiters.js';

export interface ReadyLoopTurnParts {
  readonly nodeId: string;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  readonly clock: ClusterClock;
  readonly raw: RawNode;
  readonly logStore: LevelLogStore;
  /** The transport now (it starts after the node is built). */
  readonly transport: () => NodeTransport;
  readonly leadership: LeaderWatch;
  readonly proposer: EntryProposer;
  readonly applier: CommittedEntryApplier;
  /** Holds a follower's committed entries back for fewer, larger apply steps. */
  readonly applyPacing: FollowerApplyPacing;
  /** Someone waits for an applied index (a read on this node): nothing is held back then. */
  readonly isApplyAwaited: () => boolean;
  readonly reads: ReadIndexReader;
  readonly snapshotReceiver: SnapshotReceiver;
  readonly snapshotSender: SnapshotSender;
  readonly snapshotTaker: SnapshotTaker;
  readonly reporter: NodeStatusReporter;
  readonly txnWaiters: TxnWaiters;
  readonly opServer: OpStreamServer;
  /** The monotonic clock the fsync and apply durations are measured on (the runtime's). */
  readonly scheduler: Scheduler;
}

/**
 * Whether committed entries may be applied while a Ready's own entries and hard state are written:
 * only entries this node had already made durable (at or below `durableLastIndex`, the log's last
 * index before the write), never with a snapshot to install, and never a conf change (its apply
 * records the membership in the log store the write is writing).
 */
export function mayApplyBesideWrite(
  toApply: readonly Entry[],
  context: { readonly hasSnapshot: boolean; readonly durableLastIndex: number },
): boolean {
  const last = toApply[toApply.length - 1];
  return (
    last !== undefined &&
    !context.hasSnapshot &&
    last.index <= context.durableLastIndex &&
    !toApply.some((entry) => entry.type === EntryType.ConfChange)
  );
}

export class ReadyLoopTurn {
  constructor(private readonly parts: ReadyLoopTurnParts) {}

  async run(): Promise<void> {
    const { raw, snapshotReceiver } = this.parts;
    snapshotReceiver.stepPending();
    this.parts.proposer.proposeQueued();
    this.parts.reads.issueRounds();
    if (raw.hasReady()) this.parts.metrics.readyTurns.inc();
    while (raw.hasReady()) {
      const ready = raw.ready();
      await this.handleReady(ready);
      raw.advance(ready);
    }
    if (this.parts.applyPacing.pendingCount > 0) {
      const due = this.parts.applyPacing.takeDue(this.mayHoldBack(false, false));
      if (due.length > 0) await this.apply(due);
    }
    snapshotReceiver.finishStep();
    this.parts.reporter.updateGauges();
  }

  private async handleReady(ready: Ready): Promise<void> {
    const { logStore, reads } = this.parts;
    if (ready.softState !== null) this.onSoftState(ready.softState);
    if (ready.snapshot !== null) await this.parts.snapshotReceiver.install(ready.snapshot);
    // A leader's appends do not depend on its own copy of the entries being durable (Raft thesis
    // §10.2.1: the leader counts itself only once its write is done), so they leave before the
    // fsync and the leader's write overlaps the followers'. Everything else waits for it: votes,
    // and anything sent in a Ready that changes the term or the vote.
    const persisted = logStore.currentHardState();
    const isTermSettled =
      ready.hardState === null || (ready.hardState.term === persisted.term && ready.hardState.vote === persisted.vote);
    const isEarlySendAllowed = this.parts.leadership.isLeader && isTermSettled;
    const isEarly = (message: RaftMessage): boolean =>
      isEarlySendAllowed && (message.type === MessageType.App || message.type === MessageType.Heartbeat);
    for (const message of ready.messages) if (isEarly(message)) this.send(message);
    const mayHoldBack = this.mayHoldBack(ready.snapshot !== null, ready.readStates.length > 0);
    const toApply = this.parts.applyPacing.take(ready.committedEntries, mayHoldBack);
    // Committed entries this node had made durable before this Ready are applied while its own
    // entries are written: the apply is the main thread's work, the synced write the disk's, and
    // one waiting for the other made every turn their sum. Not when the committed entries reach
    // into what this Ready writes (a follower told the commit index with the entries themselves),
    // nor for a conf change, whose apply records the membership in the log store.
    const isApplyOverlapped = mayApplyBesideWrite(toApply, {
      hasSnapshot: ready.snapshot !== null,
      durableLastIndex: logStore.lastIndex(),
    });
    const persistThenSend = async (): Promise<void> => {
      await this.persist(ready);
      for (const message of ready.messages) if (!isEarly(message)) this.send(message);
    };
    if (isApplyOverlapped) {
      // The write first: its batch is built and handed to LevelDB before the apply takes the thread.
      const [written, applied] = await Promise.allSettled([persistThenSend(), this.applyEntries(toApply)]);
      // Whatever the write did, the apply it overlapped has ended before the turn goes on.
      if (written.status === 'rejected') throw written.reason;
      if (applied.status === 'rejected') throw applied.reason;
      await this.parts.snapshotTaker.maybeSnapshot(toApply[toApply.length - 1] as Entry);
    } else {
      await persistThenSend();
      if (toApply.length > 0) await this.apply(toApply);
    }
    for (const readState of ready.readStates) reads.complete(readState.requestCtx, readState.index);
  }

  private async persist(ready: Ready): Promise<void> {
    const { logStore, metrics } = this.parts;
    if (ready.hardState === null && ready.entries.length === 0) return;
    const startedAt = this.parts.scheduler.monotonicMs();
    if (await logStore.persist(ready.hardState, ready.entries)) {
      metrics.fsyncs.inc();
      metrics.fsyncSeconds.observe((this.parts.scheduler.monotonicMs() - startedAt) / 1000);
    }
  }

  private mayHoldBack(hasSnapshot: boolean, hasReadStates: boolean): boolean {
    return mayHoldBackApply({
      isFollowing: this.parts.leadership.isFollowing,
      isApplyAwaited: this.parts.isApplyAwaited(),
      hasSnapshot,
      hasReadStates,
    });
  }

  /** Applies committed entries and takes a snapshot if one is due. */
  private async apply(entries: readonly Entry[]): Promise<void> {
    await this.applyEntries(entries);
    await this.parts.snapshotTaker.maybeSnapshot(entries[entries.length - 1] as Entry);
  }

  private async applyEntries(entries: readonly Entry[]): Promise<void> {
    const startedAt = this.parts.scheduler.monotonicMs();
    await this.parts.applier.applyCommitted(entries);
    this.parts.metrics.applySeconds.observe((this.parts.scheduler.monotonicMs() - startedAt) / 1000);
  }

  private onSoftState(softState: SoftState): void {
    const { leadership, clock, logger } = this.parts;
    const previous = leadership.update(softState);
    const term = this.parts.raw.status().term;
    if (softState.role === 'leader' && previous.role !== 'leader') {
      clock.becomeReference();
      this.parts.proposer.continueStamps();
      logger.info({ term }, 'became leader');
    } else if (softState.leader !== previous.leader) {
      clock.forgetSamples();
      if (softState.leader === '') logger.info({ term, role: softState.role }, 'lost the leader');
      else logger.info({ term, leader: softState.leader }, 'following a new leader');
    }
    if (previous.role === 'leader' && softState.role !== 'leader') {
      logger.info({ term }, 'stepped down as leader');
      this.parts.txnWaiters.rejectAll((txnId) => new LeadershipLostError(txnId));
      this.parts.opServer.steppedDown();
      this.parts.reads.failAll(new NotLeaderError(this.parts.nodeId, softState.leader));
    }
    leadership.notify();
  }

  private send(message: RaftMessage): void {
    this.parts.metrics.sentByKind.count(message);
    if (message.type === MessageType.Snap) {
      this.parts.snapshotSender.send(message);
      return;
    }
    this.parts.transport().sendRaft(message);
  }
}
