/**
 * The follower's side of InstallSnapshot. A streamed snapshot is written into DATA/state-incoming
 * (offsets and CRC-32 checked), then offered to the core: the Ready loop steps its message in
 * (stepPending). If the core takes it, the next Ready carries the snapshot and install() swaps
 * the received database in (crash-safe, see state-install.ts); if that turn of the loop produced
 * no such Ready, the core did not want it (finishStep) and the download is dropped.
 */
import type { Logger } from 'pino';
import { assert } from '../base/assert.js';
import type { raftq } from '../gen/proto.js';
import type { RaftMessage, Snapshot } from '../raft/types.js';
import { SnapshotTransferError } from './errors.js';
import { decodeMembership, type LevelLogStore } from './level-log-store.js';
import type { NodeMetrics } from './node-metrics.js';
import { raftMessageFromWire } from './raft-codec.js';
import { ChunkVerifier } from './snapshot-chunks.js';
import type { StateDirectory } from './node-storage.js';
import type { IncomingState, StateStore } from './state-store.js';
import type { AppliedIndexWaiters } from './txn-waiters.js';

export interface SnapshotReceiverParts {
  readonly stateDir: StateDirectory;
  readonly groupId: number;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  readonly logStore: LevelLogStore;
  readonly isStopping: () => boolean;
  /** Wakes the Ready loop, which steps a received snapshot into the core. */
  readonly kick: () => void;
  readonly step: (message: RaftMessage) => void;
  /** The state database now; install() closes it before swapping the received one in. */
  readonly state: () => StateStore;
  /** Makes the swapped-in database the node's state and tells the state observers. */
  readonly adoptState: (state: StateStore) => void;
  readonly refreshPeers: () => void;
  readonly appliedWaiters: AppliedIndexWaiters;
}

export class SnapshotReceiver {
  private isReceiving = false;
  private pendingStep: { message: RaftMessage; resolve(installed: boolean): void } | null = null;
  private awaitedIndex: number | null = null;

  constructor(private readonly parts: SnapshotReceiverParts) {}

  /** Receives a streamed snapshot into DATA/state-incoming, then offers it to the core. */
  async receive(
    chunks: AsyncIterable<raftq.raft.SnapshotChunk>,
    fromId: string,
  ): Promise<raftq.raft.SnapshotAck.$Properties> {
    if (this.isReceiving) return { isInstalled: false, error: 'another snapshot is being received' };
    if (this.parts.isStopping()) return { isInstalled: false, error: 'node is stopping' };
    this.isReceiving = true;
    let incoming: IncomingState | null = null;
    let isComplete = false;
    try {
      incoming = await this.parts.stateDir.createIncoming();
      const verifier = new ChunkVerifier();
      let message: RaftMessage | null = null;
      for await (const chunk of chunks) {
        if (chunk.groupId !== this.parts.groupId)
          throw new SnapshotTransferError(fromId, `chunk for group ${chunk.groupId}`);
        if (message === null && chunk.message) message = raftMessageFromWire(chunk.message);
        const verdict = verifier.accept({
          offsetBytes: Number(chunk.offsetBytes),
          data: chunk.data,
          isLast: chunk.isLast,
          checksum: chunk.checksum,
        });
        if (!verdict.ok) throw new SnapshotTransferError(fromId, verdict.why);
        await incoming.writeChunk(chunk.data);
        if (chunk.isLast) isComplete = true;
      }
      if (!isComplete || message === null || message.snapshot === null)
        throw new SnapshotTransferError(fromId, 'the stream ended before its last chunk');
      await incoming.finish();
      const snapshot = message.snapshot;
      const installed = await new Promise<boolean>((resolve) => {
        this.pendingStep = { message, resolve };
        this.parts.kick();
      });
      if (!installed) {
        await incoming.abandon();
        return { isInstalled: false, error: `the snapshot at ${snapshot.meta.index} was not needed` };
      }
      return { isInstalled: true };
    } catch (error) {
      await incoming?.abandon();
      this.parts.logger.warn({ fromId, err: error }, 'snapshot receive failed');
      return { isInstalled: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.isReceiving = false;
    }
  }

  /** Steps a received snapshot into the core, once. Loop only, before the turn's Readys. */
  stepPending(): void {
    const pending = this.pendingStep;
    if (pending === null || this.awaitedIndex !== null) return;
    this.awaitedIndex = pending.message.snapshot?.meta.index ?? null;
    this.parts.step(pending.message);
  }

  /** The snapshot step did not produce a Ready with that snapshot: the core did not want it. */
  finishStep(): void {
    const pending = this.pendingStep;
    if (pending === null || this.awaitedIndex === null) return;
    this.pendingStep = null;
    this.awaitedIndex = null;
    pending.resolve(false);
  }

  /** Swaps in the snapshot a Ready carries (the one stepped in this turn). Loop only. */
  async install(snapshot: Snapshot): Promise<void> {
    const { stateDir, logStore, logger } = this.parts;
    const pending = this.pendingStep;
    assert(
      pending !== null && this.awaitedIndex === snapshot.meta.index,
      () => `a Ready carries snapshot ${snapshot.meta.index} that was not received`,
    );
    const addresses =
      snapshot.data.byteLength > 0 ? decodeMembership(snapshot.data).addresses : logStore.currentMembership().addresses;
    await this.parts.state().close();
    await stateDir.swapIn({ meta: snapshot.meta, addresses }, logStore);
    const state = await stateDir.openLive();
    this.parts.adoptState(state);
    this.pendingStep = null;
    this.awaitedIndex = null;
    this.parts.refreshPeers();
    this.parts.metrics.snapshotInstalls.inc();
    logger.info(
      { index: snapshot.meta.index, term: snapshot.meta.term, stateAppliedIndex: state.appliedIndex },
      'installed a snapshot from the leader',
    );
    this.parts.appliedWaiters.notify();
    pending.resolve(true);
  }
}
