/**
 * Taking snapshots: after applying, once enough entries were applied since the last snapshot or
 * the log held in memory grew too large, the state is flushed and a snapshot recorded at its
 * applied index, compacting the log behind it (keeping a catch-up window for slow followers).
 */
import type { Logger } from 'pino';
import { raftLimits } from '../base/limits.js';
import type { Entry } from '../raft/types.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeConfig } from './node-config.js';
import type { NodeMetrics } from './node-metrics.js';
import type { StateStore } from './state-store.js';

export interface SnapshotTakerParts {
  readonly config: Pick<NodeConfig, 'snapshotThresholdEntries' | 'snapshotCatchUpEntries'>;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  readonly logStore: LevelLogStore;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  /** The compactPastFlush fault (NodeFaults): compact without flushing the state first. Never set in production. */
  readonly isFlushSkipped?: boolean;
  /** Log bytes that make a snapshot due (default raftLimits.logMirrorBytesMax; tests use less). */
  readonly logBytesMax?: number;
}

export class SnapshotTaker {
  constructor(private readonly parts: SnapshotTakerParts) {}

  /** Takes a snapshot and compacts the log when enough was applied since the last one. Loop only. */
  async maybeSnapshot(lastApplied: Entry): Promise<void> {
    const { config, logStore } = this.parts;
    const logBytesMax = this.parts.logBytesMax ?? raftLimits.logMirrorBytesMax.value;
    const snapshotIndex = logStore.snapshot().meta.index;
    const index = Math.min(lastApplied.index, this.parts.state().appliedIndex, logStore.lastIndex());
    // Index 1 goes at the first chance: the founding configuration is given at bootstrap, not
    // logged, so a member with an empty log (a joiner, or a member wiped and started with --join
    // without being removed) that replayed the log from index 1 would never learn it. With entry
    // 1 gone, such a member receives a snapshot, which carries the configuration.
    const isFoundingEntryKept = logStore.firstIndex() <= 1;
    const isDue =
      isFoundingEntryKept ||
      index - snapshotIndex >= config.snapshotThresholdEntries ||
      logStore.logBytes() >= logBytesMax;
    if (!isDue || index <= snapshotIndex) return;
    // The catch-up window keeps snapshotCatchUpEntries entries, but never more than half the byte
    // bound: with large entries (a thousand batches of 64 KiB messages is over 600 MiB) a window
    // counted in entries alone stayed above the bound, and every apply took another snapshot.
    const compactIndex = Math.min(
      index,
      Math.max(
        1,
        logStore.firstIndex() - 1,
        index - config.snapshotCatchUpEntries,
        logStore.compactIndexKeepingBytes(Math.floor(logBytesMax / 2)),
      ),
    );
    await this.takeSnapshot(index, compactIndex);
  }

  /** Snapshot at `index` (applied here), compacting the log up to `compactIndex`. Loop only. */
  async takeSnapshot(index: number, compactIndex: number): Promise<void> {
    const { logStore } = this.parts;
    const membership = logStore.currentMembership();
    if (membership.index > index) return;
    // The log may only be compacted behind state that is durable.
    if (this.parts.isFlushSkipped !== true) await this.parts.state().mvcc.flush();
    await logStore.createSnapshot(
      { index, confState: membership.confState, addresses: membership.addresses },
      compactIndex,
    );
    this.parts.metrics.snapshotsTaken.inc();
    this.parts.logger.info(
      { index, compactIndex, firstIndex: logStore.firstIndex() },
      'took a snapshot and compacted the log',
    );
  }
}
