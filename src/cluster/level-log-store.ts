/**
 * The durable Raft log and hard state in their own LevelDB database (DATA/raft), behind the
 * synchronous RaftStorage interface the core reads. It reads and writes through the storage
 * Engine interface, so the simulator can open it over a MemoryEngine (openOnEngine) and lose its
 * unsynced batches in a simulated power loss. Everything since the last compaction is
 * mirrored in memory (the core reads synchronously); the mirror's size is what triggers the next
 * snapshot (raftLimits.logMirrorBytesMax), so it stays bounded.
 *
 * The key layout is in log-store-layout.ts, the membership record in membership-record.ts. Like
 * the in-memory storage of the core, the log keeps a dummy entry at the compaction point.
 *
 * Damage. Every value carries a CRC-32 of its key and bytes. On open, the write-ahead log of the
 * database is inspected before LevelDB replays it (level-wal-inspection.ts), then every entry is
 * checked (checksum, index, terms never decreasing; log-store-open.ts). The log is cut back to
 * what can be trusted and the node is told to repair its tail from the leader (`LogTailRepair`);
 * what cannot be repaired that way stops the start with RaftLogDamagedError. The reasoning is in
 * docs/architecture/cluster.md.
 */
import { assert } from '../base/assert.js';
import { limitEntriesBySize, entrySizeBytes } from '../raft/entry-size.js';
import { CompactedError, SnapshotOutOfDateError, UnavailableError } from '../raft/errors.js';
import {
  EntryType,
  type ConfState,
  type Entry,
  type HardState,
  type RaftStorage,
  type Snapshot,
  type SnapshotMeta,
} from '../raft/types.js';
import type { Engine } from '../storage/engine.js';
import { LevelEngine } from '../storage/level-engine.js';
import { encodeEntry, encodeHardState, encodeSnapshotMeta } from './raft-codec.js';
import { inspectLevelWal, type WalDamage } from './level-wal-inspection.js';
import {
  confStateKey,
  dummyKey,
  emptyBytes,
  entryKey,
  hardStateKey,
  putOne,
  sealEntry,
  snapshotDataKey,
  snapshotKey,
  WriteBatch,
} from './log-store-layout.js';
import { loadLog, type LoadedLog } from './log-store-open.js';
import type { LogTailRepair } from './log-tail-repair.js';
import { encodeMembership, type Membership } from './membership-record.js';
import { sealValue } from './sealed-value.js';

export { decodeMembership, encodeMembership, type Membership } from './membership-record.js';

type Db = Engine;

/** Deliberate faults, for the whole-node simulator (test/sim-node) only; never set in production. */
export interface LogStoreFaults {
  /** persist() resolves without syncing: the node acknowledges entries and votes a power loss can take back. */
  readonly ackBeforeFsync?: boolean;
}

export class LevelLogStore implements RaftStorage {
  /** log[0] is the dummy at the compaction point; log[i] has index offset + i. */
  private log: Entry[];
  private mirrorBytes = 0;
  /** What the open found wrong with the log's tail and how it was cut back (null: nothing). */
  tailRepair: LogTailRepair | null = null;
  private faults: LogStoreFaults = {};

  private hardState: HardState;
  private membership: Membership;
  private snapshotMeta: SnapshotMeta;
  private snapshotData: Uint8Array;

  private constructor(
    private readonly db: Db,
    loaded: LoadedLog,
  ) {
    this.hardState = loaded.hardState;
    this.membership = loaded.membership;
    this.snapshotMeta = loaded.snapshotMeta;
    this.snapshotData = loaded.snapshotData;
    this.log = loaded.log;
    this.tailRepair = loaded.tailRepair;
    for (let i = 1; i < this.log.length; i++) this.mirrorBytes += entrySizeBytes(this.log[i] as Entry);
  }

  /**
   * Opens (or creates) the log at `path`. A new log starts with `bootstrap` as its configuration
   * at index 0 (every node of a new cluster is given the same list). A damaged tail is cut back
   * before the core sees it; `tailRepair` says what was found.
   */
  static async open(path: string, bootstrap: Membership): Promise<LevelLogStore> {
    const inspection = inspectLevelWal(path, hardStateKey);
    const db = await LevelEngine.open(path);
    return LevelLogStore.openOnEngine(db, {
      path,
      bootstrap,
      walDamage: inspection.damage,
      hardStateBeforeDamage: inspection.lastWatchedValue,
    });
  }

  /**
   * Opens the log stored in `db` (which it then owns and closes). `path` only names the log in
   * errors; `walDamage` is what an inspection of the engine's write-ahead log found, if any.
   */
  static async openOnEngine(
    db: Engine,
    options: {
      path: string;
      bootstrap: Membership;
      walDamage?: WalDamage | null;
      hardStateBeforeDamage?: Uint8Array | null;
      faults?: LogStoreFaults;
    },
  ): Promise<LevelLogStore> {
    try {
      const loaded = await loadLog(
        db,
        options.path,
        options.bootstrap,
        options.walDamage ?? null,
        options.hardStateBeforeDamage ?? null,
      );
      const store = new LevelLogStore(db, loaded);
      store.faults = options.faults ?? {};
      return store;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: this.hardState, confState: this.membership.confState };
  }

  entries(lo: number, hi: number, maxBytes: number): Entry[] {
    const offset = this.offset();
    if (lo <= offset) throw new CompactedError(lo, offset + 1);
    if (hi > this.lastIndex() + 1) throw new UnavailableError(hi - 1, this.lastIndex());
    assert(lo <= hi, () => `entries: lo ${lo} > hi ${hi}`);
    return limitEntriesBySize(this.log.slice(lo - offset, hi - offset), maxBytes);
  }

  term(index: number): number {
    const offset = this.offset();
    if (index < offset) throw new CompactedError(index, offset + 1);
    if (index > this.lastIndex()) throw new UnavailableError(index, this.lastIndex());
    return (this.log[index - offset] as Entry).term;
  }

  firstIndex(): number {
    return this.offset() + 1;
  }

  lastIndex(): number {
    return this.offset() + this.log.length - 1;
  }

  /** The core sends this to a follower that is too far behind; `data` carries the membership. */
  snapshot(): Snapshot {
    return { meta: this.snapshotMeta, data: this.snapshotData };
  }

  currentHardState(): HardState {
    return this.hardState;
  }

  currentMembership(): Membership {
    return this.membership;
  }

  /** Bytes of log entries held since the compaction point (what bounds memory). */
  logBytes(): number {
    return this.mirrorBytes;
  }

  /**
   * The highest index whose compaction would leave at most `bytesMax` bytes of entries after it
   * (the compaction point itself when the entries held already fit), for a snapshot triggered by
   * size: a catch-up window counted in entries alone could keep more than the bound allows.
   */
  compactIndexKeepingBytes(bytesMax: number): number {
    let keptBytes = 0;
    for (let i = this.log.length - 1; i >= 1; i--) {
      keptBytes += entrySizeBytes(this.log[i] as Entry);
      if (keptBytes > bytesMax) return this.offset() + i;
    }
    return this.offset();
  }

  /** Entries since the compaction point, for the snapshot trigger. */
  logEntries(): number {
    return this.log.length - 1;
  }

  /**
   * Persists a Ready's hard state and entries in one batch, then updates the mirror. New entries
   * that conflict with the tail replace it (a new leader overwrote uncommitted entries). The batch
   * is synced when it holds entries or a new term or vote; a change of the commit index alone is
   * not (a lost one is learned again from the leader), as in etcd. Returns whether it synced.
   */
  async persist(hardState: HardState | null, entries: readonly Entry[]): Promise<boolean> {
    if (hardState === null && entries.length === 0) return false;
    const isSyncNeeded =
      entries.length > 0 ||
      (hardState !== null && (hardState.term !== this.hardState.term || hardState.vote !== this.hardState.vote));
    const batch = new WriteBatch();
    if (hardState !== null) batch.put(hardStateKey, sealValue(hardStateKey, encodeHardState(hardState)));
    const fresh = this.freshEntries(entries);
    const first = fresh[0];
    if (first !== undefined) {
      assert(
        first.index <= this.lastIndex() + 1,
        () => `persist: gap between last index ${this.lastIndex()} and ${first.index}`,
      );
      const newLast = (fresh[fresh.length - 1] as Entry).index;
      for (const entry of fresh) batch.put(entryKey(entry.index), sealEntry(entry));
      for (let index = newLast + 1; index <= this.lastIndex(); index++) batch.del(entryKey(index));
    }
    await batch.write(this.db, { sync: isSyncNeeded && this.faults.ackBeforeFsync !== true });
    if (hardState !== null) this.hardState = hardState;
    if (first !== undefined) {
      const offset = this.offset();
      for (let i = first.index - offset; i < this.log.length; i++)
        this.mirrorBytes -= entrySizeBytes(this.log[i] as Entry);
      this.log.length = first.index - offset;
      for (const entry of fresh) {
        assert(entry.index === this.offset() + this.log.length, 'persist: entries must be contiguous');
        this.log.push(entry);
        this.mirrorBytes += entrySizeBytes(entry);
      }
    }
    return isSyncNeeded;
  }

  /** Records the configuration produced by the conf change at `index` (synced: it is rare). */
  async recordMembership(record: Membership): Promise<void> {
    await putOne(this.db, confStateKey, sealValue(confStateKey, encodeMembership(record)), { sync: true });
    this.membership = record;
  }

  /**
   * Records a snapshot of the applied state at `index` and discards log entries before
   * `compactIndex` (<= index: a few are kept so that a follower slightly behind needs no snapshot).
   * The caller guarantees the state machine has durably applied `index`.
   */
  async createSnapshot(
    meta: { index: number; confState: ConfState; addresses: Readonly<Record<string, string>> },
    compactIndex: number,
  ): Promise<void> {
    if (meta.index <= this.snapshotMeta.index) throw new SnapshotOutOfDateError(meta.index, this.snapshotMeta.index);
    assert(
      compactIndex <= meta.index && meta.index <= this.lastIndex(),
      () => `createSnapshot: compact ${compactIndex} <= ${meta.index} <= ${this.lastIndex()}`,
    );
    const snapshotMeta: SnapshotMeta = { index: meta.index, term: this.term(meta.index), confState: meta.confState };
    const offset = this.offset();
    const batch = new WriteBatch();
    batch.put(snapshotKey, sealValue(snapshotKey, encodeSnapshotMeta(snapshotMeta)));
    if (compactIndex > offset) {
      const dummy: Entry = {
        index: compactIndex,
        term: this.term(compactIndex),
        type: EntryType.Normal,
        data: emptyBytes,
      };
      batch.put(dummyKey, sealValue(dummyKey, encodeEntry(dummy)));
      for (let index = offset + 1; index <= compactIndex; index++) batch.del(entryKey(index));
      for (let i = 1; i <= compactIndex - offset; i++) this.mirrorBytes -= entrySizeBytes(this.log[i] as Entry);
      this.log = [dummy, ...this.log.slice(compactIndex - offset + 1)];
    }
    const snapshotData = encodeMembership({ confState: meta.confState, index: meta.index, addresses: meta.addresses });
    batch.put(snapshotDataKey, sealValue(snapshotDataKey, snapshotData));
    await batch.write(this.db, { sync: true });
    this.snapshotMeta = snapshotMeta;
    this.snapshotData = snapshotData;
  }

  /**
   * Replaces the whole log with a snapshot received from the leader: the snapshot becomes the
   * compaction point, and the configuration is the snapshot's.
   */
  async applySnapshot(meta: SnapshotMeta, addresses: Readonly<Record<string, string>>): Promise<void> {
    if (meta.index <= this.snapshotMeta.index) throw new SnapshotOutOfDateError(meta.index, this.snapshotMeta.index);
    const dummy: Entry = { index: meta.index, term: meta.term, type: EntryType.Normal, data: emptyBytes };
    const membership: Membership = { confState: meta.confState, index: meta.index, addresses };
    const batch = new WriteBatch();
    batch.put(snapshotKey, sealValue(snapshotKey, encodeSnapshotMeta(meta)));
    batch.put(snapshotDataKey, sealValue(snapshotDataKey, encodeMembership(membership)));
    batch.put(dummyKey, sealValue(dummyKey, encodeEntry(dummy)));
    batch.put(confStateKey, sealValue(confStateKey, encodeMembership(membership)));
    for (let index = this.offset() + 1; index <= this.lastIndex(); index++) batch.del(entryKey(index));
    await batch.write(this.db, { sync: true });
    this.snapshotMeta = meta;
    this.snapshotData = encodeMembership(membership);
    this.membership = membership;
    this.log = [dummy];
    this.mirrorBytes = 0;
  }

  /**
   * Offline recovery only (`raftq recover`): makes `membership` the configuration wherever the log
   * records one — the current membership and the snapshot's — in one synced batch. Its index must
   * cover every conf change entry in the log, so that none of them is applied over it later.
   */
  async replaceMembership(membership: Membership): Promise<void> {
    assert(
      membership.index >= this.lastIndex() && membership.index >= this.membership.index,
      () => `replaceMembership: index ${membership.index} below the log's last index or current membership`,
    );
    const batch = new WriteBatch();
    batch.put(confStateKey, sealValue(confStateKey, encodeMembership(membership)));
    const snapshotMeta: SnapshotMeta = { ...this.snapshotMeta, confState: membership.confState };
    let snapshotData = this.snapshotData;
    // Without a snapshot (index 0) nothing is stored: the next open derives it from the membership.
    if (snapshotMeta.index > 0) {
      snapshotData = encodeMembership({ ...membership, index: snapshotMeta.index });
      batch.put(snapshotKey, sealValue(snapshotKey, encodeSnapshotMeta(snapshotMeta)));
      batch.put(snapshotDataKey, sealValue(snapshotDataKey, snapshotData));
    }
    await batch.write(this.db, { sync: true });
    this.membership = membership;
    this.snapshotMeta = snapshotMeta;
    this.snapshotData = snapshotData;
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  /** Drops entries the log already holds below its compaction point (they are committed and equal). */
  private freshEntries(entries: readonly Entry[]): readonly Entry[] {
    const offset = this.offset();
    const first = entries[0];
    if (first === undefined || first.index > offset) return entries;
    return entries.filter((entry) => entry.index > offset);
  }

  private offset(): number {
    return (this.log[0] as Entry).index;
  }
}
