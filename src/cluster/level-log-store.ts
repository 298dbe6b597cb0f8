/**
 * The durable Raft log and hard state in their own LevelDB database (DATA/raft), behind the
 * synchronous RaftStorage interface the core reads. It reads and writes through the storage
 * Engine interface, so the simulator can open it over a MemoryEngine (openOnEngine) and lose its
 * unsynced batches in a simulated power loss. Everything since the last compaction is
 * mirrored in memory (the core reads synchronously); the mirror's size is what triggers the next
 * snapshot (raftLimits.logMirrorBytesMax), so it stays bounded.
 *
 * Layout (keys are ASCII tags, entry keys add the index big-endian so they sort by index):
 *   'e' ‖ BE64(index) → Entry        'hs' → HardState       'snap' → SnapshotMeta
 *   'dummy' → Entry with empty data at the compaction point (its term answers term(firstIndex-1))
 *   'cs' → Membership: the configuration and addresses as of the last applied conf change
 *   'snapdata' → Membership as of the snapshot, sent as the snapshot's data
 *   'fmt' → the format version (1: every value sealed with a checksum, see sealed-value.ts)
 * Like the in-memory storage of the core, the log keeps a dummy entry at the compaction point.
 *
 * Damage. Every value carries a CRC-32 of its key and bytes. On open, the write-ahead log of the
 * database is inspected before LevelDB replays it (level-wal-inspection.ts), then every entry is
 * checked (checksum, index, terms never decreasing). The log is cut back to what can be trusted and
 * the node is told to repair its tail from the leader (`LogTailRepair`); what cannot be repaired
 * that way stops the start with RaftLogDamagedError. The reasoning is in docs/architecture/cluster.md.
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
import { raftq } from '../gen/proto.js';
import { readRange, type Engine, type EngineWrite } from '../storage/engine.js';
import { LevelEngine } from '../storage/level-engine.js';
import {
  decodeEntry,
  decodeHardState,
  decodeSnapshotMeta,
  encodeEntry,
  encodeHardState,
  encodeSnapshotMeta,
  confStateFromWire,
  confStateToWire,
} from './raft-codec.js';
import { RaftLogDamagedError } from './errors.js';
import { inspectLevelWal, type WalDamage } from './level-wal-inspection.js';
import { planTailRepair, type EntryDamageReason, type EntryScan, type LogTailRepair } from './log-tail-repair.js';
import { sealValue, unsealValue } from './sealed-value.js';

const utf8 = new TextEncoder();
const hardStateKey = utf8.encode('hs');
const snapshotKey = utf8.encode('snap');
const snapshotDataKey = utf8.encode('snapdata');
const dummyKey = utf8.encode('dummy');
const confStateKey = utf8.encode('cs');
const formatKey = utf8.encode('fmt');
const formatVersion = 1;
const entryTag = 0x65; // 'e'

function entryKey(index: number): Uint8Array {
  const key = new Uint8Array(9);
  key[0] = entryTag;
  new DataView(key.buffer).setBigUint64(1, BigInt(index));
  return key;
}

const entryKeysEnd = Uint8Array.of(entryTag + 1);

/** The configuration as of the conf change entry at `index` (or the snapshot it came from), with addresses. */
export interface Membership {
  readonly confState: ConfState;
  readonly index: number;
  /** Raft address of each member, as announced when it joined (or given at bootstrap). */
  readonly addresses: Readonly<Record<string, string>>;
}

export function encodeMembership(membership: Membership): Uint8Array {
  return raftq.raft.Membership.encode({
    index: membership.index,
    confState: confStateToWire(membership.confState),
    addresses: { ...membership.addresses },
  }).finish();
}

export function decodeMembership(bytes: Uint8Array): Membership {
  const decoded = raftq.raft.Membership.decode(bytes);
  return {
    index: Number(decoded.index),
    confState: confStateFromWire(decoded.confState),
    addresses: { ...decoded.addresses },
  };
}

const emptyBytes = new Uint8Array(0);

function sealEntry(entry: Entry): Uint8Array {
  return sealValue(entryKey(entry.index), encodeEntry(entry));
}

function decodeSealedHardState(sealed: Uint8Array | null): HardState | null {
  const payload = sealed === null ? null : unsealValue(hardStateKey, sealed);
  if (payload === null) return null;
  try {
    return decodeHardState(payload);
  } catch {
    return null;
  }
}

/** Reads entries after the compaction point in order, stopping at the first that fails a check. */
async function scanEntries(db: Engine, dummy: Entry): Promise<EntryScan> {
  const entries: Entry[] = [dummy];
  let maxTermSeen = dummy.term;
  let firstDamage: { index: number; reason: EntryDamageReason } | null = null;
  const rows = await readRange(db, { gte: entryKey(dummy.index + 1), lt: entryKeysEnd }, Number.MAX_SAFE_INTEGER);
  for (const { key, value: sealed } of rows) {
    const expected = dummy.index + entries.length;
    const payload = unsealValue(key, sealed);
    let entry: Entry | null = null;
    try {
      entry = payload === null ? null : decodeEntry(payload);
    } catch {
      entry = null;
    }
    if (entry !== null) maxTermSeen = Math.max(maxTermSeen, entry.term);
    if (firstDamage !== null) continue;
    const keyIndex = Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(1));
    const previous = entries[entries.length - 1] as Entry;
    if (keyIndex !== expected) firstDamage = { index: expected, reason: 'missing' };
    else if (payload === null) firstDamage = { index: expected, reason: 'checksum' };
    else if (entry === null) firstDamage = { index: expected, reason: 'undecodable' };
    else if (entry.index !== expected) firstDamage = { index: expected, reason: 'wrong-index' };
    else if (entry.term < previous.term) firstDamage = { index: expected, reason: 'term-decreases' };
    else entries.push(entry);
  }
  return { entries, firstDamage, maxTermSeen };
}

type Db = Engine;

/** Deliberate faults, for the whole-node simulator (test/sim-node) only; never set in production. */
export interface LogStoreFaults {
  /** persist() resolves without syncing: the node acknowledges entries and votes a power loss can take back. */
  readonly ackBeforeFsync?: boolean;
}

/** A batch of puts and deletes written in one Engine.write. */
class WriteBatch {
  readonly writes: EngineWrite[] = [];

  put(key: Uint8Array, value: Uint8Array): void {
    this.writes.push({ kind: 'put', key, value });
  }

  del(key: Uint8Array): void {
    this.writes.push({ kind: 'delete', key });
  }

  write(db: Db, options: { sync: boolean }): Promise<void> {
    return db.write(this.writes, options);
  }
}

async function putOne(db: Db, key: Uint8Array, value: Uint8Array, options: { sync: boolean }): Promise<void> {
  await db.write([{ kind: 'put', key, value }], options);
}

export class LevelLogStore implements RaftStorage {
  /** log[0] is the dummy at the compaction point; log[i] has index offset + i. */
  private log: Entry[];
  private mirrorBytes = 0;
  /** What the open found wrong with the log's tail and how it was cut back (null: nothing). */
  tailRepair: LogTailRepair | null = null;
  private faults: LogStoreFaults = {};

  private constructor(
    private readonly db: Db,
    private hardState: HardState,
    private membership: Membership,
    private snapshotMeta: SnapshotMeta,
    private snapshotData: Uint8Array,
    log: Entry[],
  ) {
    this.log = log;
    for (let i = 1; i < log.length; i++) this.mirrorBytes += entrySizeBytes(log[i] as Entry);
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
      const store = await LevelLogStore.load(
        db,
        options.path,
        options.bootstrap,
        options.walDamage ?? null,
        options.hardStateBeforeDamage ?? null,
      );
      store.faults = options.faults ?? {};
      return store;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  private static async load(
    db: Db,
    path: string,
    bootstrap: Membership,
    walDamage: WalDamage | null,
    hardStateBeforeDamage: Uint8Array | null,
  ): Promise<LevelLogStore> {
    const read = async <T>(key: Uint8Array, what: string, decode: (bytes: Uint8Array) => T): Promise<T | undefined> => {
      const sealed = await db.get(key);
      if (sealed === undefined) return undefined;
      const payload = unsealValue(key, sealed);
      if (payload === null) throw new RaftLogDamagedError(path, `the ${what} fails its checksum`);
      try {
        return decode(payload);
      } catch (cause) {
        throw new RaftLogDamagedError(path, `the ${what} cannot be decoded`, { cause });
      }
    };
    const format = await db.get(formatKey);
    const isNew = format === undefined;
    if (isNew) {
      const isEmpty = (await readRange(db, {}, 1)).length === 0;
      if (!isEmpty)
        throw new RaftLogDamagedError(path, 'it has no format record (written by an older version, or damaged)');
      await putOne(db, formatKey, Uint8Array.of(formatVersion), { sync: true });
    } else if (format.length !== 1 || format[0] !== formatVersion) {
      throw new RaftLogDamagedError(path, `its format record is ${Array.from(format).join(',')}, not ${formatVersion}`);
    }
    const storedHardState = await read(hardStateKey, 'hard state', decodeHardState);
    const snapshotMetaStored = await read(snapshotKey, 'snapshot record', decodeSnapshotMeta);
    const dummyStored = await read(dummyKey, 'compaction point entry', decodeEntry);
    const snapshotData = (await read(snapshotDataKey, 'snapshot membership', (bytes) => bytes.slice())) ?? emptyBytes;
    const confStateStored = await read(confStateKey, 'membership record', decodeMembership);
    const membership: Membership = confStateStored ?? bootstrap;
    const snapshotMeta: SnapshotMeta = snapshotMetaStored ?? { index: 0, term: 0, confState: membership.confState };
    const dummy: Entry = dummyStored ?? { index: 0, term: 0, type: EntryType.Normal, data: emptyBytes };
    if (confStateStored === undefined)
      await putOne(db, confStateKey, sealValue(confStateKey, encodeMembership(membership)), { sync: true });
    const scan = await scanEntries(db, dummy);
    const repair = planTailRepair({
      dummy,
      scan,
      walDamage,
      hardStateBeforeDamage: decodeSealedHardState(hardStateBeforeDamage),
      storedHardState,
    });
    const log = scan.entries.slice(0, repair.keptLastIndex - dummy.index + 1);
    const hardState = repair.hardState;
    if (repair.isCut || hardState !== storedHardState) {
      const batch = new WriteBatch();
      if (hardState !== undefined) batch.put(hardStateKey, sealValue(hardStateKey, encodeHardState(hardState)));
      for (const { key } of await readRange(
        db,
        { gte: entryKey(repair.keptLastIndex + 1), lt: entryKeysEnd },
        Number.MAX_SAFE_INTEGER,
      ))
        batch.del(key);
      await batch.write(db, { sync: true });
    }
    const store = new LevelLogStore(
      db,
      hardState ?? { term: 0, vote: '', commit: 0 },
      membership,
      snapshotMeta,
      snapshotData,
      log,
    );
    store.tailRepair = repair.report;
    return store;
  }

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: this.hardState, confState: this.membership.confState };
  }

  entries(lo: number, hi: number, maxBytes: number): Entry[] {
    const offset = this.offset();
    if (lo <= offset) throw new CompactedError(lo, offset + 1);
    if (hi > this.lastIndex() + 1) throw new UnavailableError(hi - 1, this.lastIndex());
    assert(lo <= hi, `entries: lo ${lo} > hi ${hi}`);
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
        `persist: gap between last index ${this.lastIndex()} and ${first.index}`,
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
      `createSnapshot: compact ${compactIndex} <= ${meta.index} <= ${this.lastIndex()}`,
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
      `replaceMembership: index ${membership.index} below the log's last index or current membership`,
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
