/**
 * The leader's side of InstallSnapshot: when the core asks to send a snapshot (a follower needs
 * entries already compacted away), stream the state database as it is now to that follower, one
 * transfer per follower at a time, and report the result back to the core.
 */
import type { Logger } from 'pino';
import { raftLimits } from '../base/limits.js';
import type { Scheduler } from '../base/scheduler.js';
import type { raftq } from '../gen/proto.js';
import type { RaftMessage } from '../raft/types.js';
import { SnapshotTransferError } from './errors.js';
import type { NodeTransport } from './node-transport.js';
import { encodeMembership, type LevelLogStore } from './level-log-store.js';
import type { NodeMetrics } from './node-metrics.js';
import { raftMessageToWire } from './raft-codec.js';
import { snapshotChunks } from './snapshot-chunks.js';
import type { StateStore } from './state-store.js';

export interface SnapshotSenderParts {
  readonly groupId: number;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  /** The monotonic clock a transfer's duration is measured on (the runtime's). */
  readonly scheduler: Scheduler;
  readonly logStore: LevelLogStore;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly transport: () => NodeTransport;
  /** Tells the core how the transfer ended (inside the Ready loop). */
  readonly reportSnapshot: (peerId: string, status: 'finished' | 'failure') => void;
}

export class SnapshotSender {
  private readonly sendsInFlight = new Set<string>();

  constructor(private readonly parts: SnapshotSenderParts) {}

  /** Streams the current state to a follower the leader can no longer feed from the log. Loop only. */
  send(message: RaftMessage): void {
    const { logStore, logger, metrics } = this.parts;
    const peerId = message.to;
    if (this.sendsInFlight.has(peerId)) return;
    this.sendsInFlight.add(peerId);
    // The state streams as it is now, at applied index X, which may be past the index the core
    // chose (the last snapshot taken). The message is restamped with X, its term and the
    // configuration as of X, so the follower's log and state agree once it is installed. (Apply
    // and conf changes run in this loop, so the index, membership and frozen view are one point.)
    const state = this.parts.state();
    const frozen = state.engine.snapshot();
    const stateIndex = state.appliedIndex;
    const membership = logStore.currentMembership();
    const original = message.snapshot;
    const isRestampable =
      original !== null &&
      stateIndex >= original.meta.index &&
      stateIndex <= logStore.lastIndex() &&
      stateIndex >= logStore.firstIndex() - 1 &&
      membership.index <= stateIndex;
    const restamped: RaftMessage = isRestampable
      ? {
          ...message,
          snapshot: {
            meta: { index: stateIndex, term: logStore.term(stateIndex), confState: membership.confState },
            data: encodeMembership({ ...membership, index: stateIndex }),
          },
        }
      : message;
    const groupId = this.parts.groupId;
    const wireMessage = raftMessageToWire(restamped);
    async function* chunks(): AsyncGenerator<raftq.raft.SnapshotChunk.$Properties> {
      let isFirst = true;
      for await (const chunk of snapshotChunks(frozen, raftLimits.snapshotChunkBytes.value)) {
        yield {
          groupId,
          message: isFirst ? wireMessage : null,
          offsetBytes: chunk.offsetBytes,
          data: chunk.data,
          isLast: chunk.isLast,
          checksum: chunk.checksum,
        };
        isFirst = false;
      }
    }
    const startedAt = this.parts.scheduler.monotonicMs();
    logger.info({ peerId, index: restamped.snapshot?.meta.index }, 'sending a snapshot');
    this.parts
      .transport()
      .sendSnapshot(peerId, chunks(), raftLimits.snapshotSendTimeoutMs.value)
      .then((ack) => {
        if (!ack.isInstalled) throw new SnapshotTransferError(peerId, ack.error || 'not installed');
        metrics.snapshotSends.inc({ result: 'installed' });
        logger.info(
          { peerId, durationMs: this.parts.scheduler.monotonicMs() - startedAt },
          'snapshot installed on the follower',
        );
        this.parts.reportSnapshot(peerId, 'finished');
      })
      .catch((error: unknown) => {
        metrics.snapshotSends.inc({ result: 'failed' });
        logger.warn({ peerId, err: error }, 'snapshot send failed');
        this.parts.reportSnapshot(peerId, 'failure');
      })
      .finally(() => {
        this.sendsInFlight.delete(peerId);
        void frozen.release().catch(() => undefined);
      });
  }
}
