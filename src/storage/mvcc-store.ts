/**
 * The multi-version keyspace: every logical key (an encoded tuple) has versions at commit
 * timestamps, each a value or a deletion marker (layout in version-key.ts), plus the system rows
 * of system-keys.ts. Reads are snapshot reads at a timestamp; writes arrive only through
 * `applyExclusive`, one engine batch per apply step together with the applied index.
 *
 * Two watermarks, because one of them must be identical on every replica and the other need not:
 * - the horizon H (horizon.ts: the newest commit timestamp at least historyMs older than
 *   lastCommitTs), a pure function of the applied history, so the same on every replica at the
 *   same index. OCC rejects a txn with startTsUs < H as too-old, and
 *   garbage collection removes a deletion marker that is a key's newest version only when it is
 *   at or below H: every replica then decides every conflict identically, whatever its local
 *   collection progress;
 * - the read watermark W = max(H, min(oldest open read view, lastCommitTs)), local to this
 *   replica. Versions hidden below W by a newer one are removed. Open views at or above H hold W
 *   back; a view older than H (held longer than historyMs) no longer does, and its reads fail with
 *   ReadBelowWatermarkError once collection passes it. Reads never return a silently wrong result.
 *
 * Read views are in mvcc-read-view.ts, batched newest-version lookups in latest-version-lookup.ts,
 * the keys known to have no version (implied new) in absent-key-set.ts,
 * the collection steps in version-collector.ts, the applied row in applied-row.ts, scans over the
 * engine (and the dead-prefix cache they use) in mvcc-range-scan.ts, and what an apply step
 * writes (and the checks on it) in applied-batch.ts.
 */
import { assert } from '../base/assert.js';
import { raftqLimits } from '../base/limits.js';
import { AbsentKeySet } from './absent-key-set.js';
import { engineWritesOf, type AppliedBatch } from './applied-batch.js';
import { decodeAppliedRow } from './applied-row.js';
import { DeadPrefixCache } from './dead-prefix-cache.js';
import { readRange, type Engine, type EngineEntry } from './engine.js';
import { GarbageLedger } from './garbage-ledger.js';
import { planLedgerStep, type LedgerStepPlan } from './ledger-collection.js';
import { compareBytes } from './key-codec.js';
import { HorizonTracker } from './horizon.js';
import { keyHashOf } from './key-hash.js';
import { latestVersionsOfKeys, type LatestVersion } from './latest-version-lookup.js';
import { ReadBelowWatermarkError, StateFormatError } from './mvcc-errors.js';
import { scanForwardAt, scanReverseAt } from './mvcc-range-scan.js';
import { KeyChangeStamps, type ReadStamp } from './key-change-stamps.js';
import { MvccReadView, OpenReadViews } from './mvcc-read-view.js';
import { NewestVersionCache, noVersionTs, type NewestVersionCacheOptions } from './newest-version-cache.js';
import { readInOnePass } from './one-pass-point-reads.js';
import { appliedRowKey, formatRowKey, horizonRowKey, stateFormatVersion, systemRowMarker } from './system-keys.js';
import type { KeyRange, KeyValue, ReadView } from './txn.js';
import { VersionCollector, type GcStats, type GcStepPlan, type GcStepReport } from './version-collector.js';
import {
  commitTsOf,
  decodeVersionValue,
  encodeVersionKey,
  logicalKeyOf,
  userSpaceStart,
  versionsEnd,
  versionsStart,
} from './version-key.js';

export type { AppliedBatch, VersionWrite } from './applied-batch.js';

/** A collection step read and decided, not yet finished (MvccStore.planGarbageStep): a step of a pass over the keyspace, or of the garbage ledger. */
export type GcStepPlanOfStore =
  | { readonly kind: 'pass'; readonly step: GcStepPlan; readonly store: MvccStore; readonly pass: PassStart }
  | { readonly kind: 'ledger'; readonly step: LedgerStepPlan; readonly store: MvccStore };

/** What a pass started with: whether it finds every garbage version the ledger does not track. */
interface PassStart {
  readonly horizonTs: number;
  readonly trackedAfterTs: number;
}

export interface MvccStoreOptions {
  /** Commit-time history kept, in ms (default raftqLimits.mvccHistoryMs); must be equal on every replica. */
  readonly historyMs?: number;
  /** Scan starts whose dead runs are remembered (default raftqLimits.deadPrefixesMax). */
  readonly deadPrefixesMax?: number;
  /** Dead keys a scan must skip before its run is remembered (default raftqLimits.deadPrefixKeysMin). */
  readonly deadPrefixKeysMin?: number;
  /** Bounds of the newest-version cache (default raftqLimits.newestVersionCache*). */
  readonly newestVersionCache?: NewestVersionCacheOptions;
  /** Test-only deliberate faults (the whole-node simulator proves its checkers with them); never set in production. */
  readonly faults?: MvccFaults;
  /**
   * Keys that have never had a version whenever `key`, written with the new-key vouch
   * (TxnWrite.isNewKey), has not: the layer above knows them (a message's receive-state row is
   * named by the same minted id as its data row). The store remembers them as absent, so the first
   * read or validation of one skips the engine. Outcomes do not depend on it as long as the vouch is
   * true (docs/architecture/storage.md, "Keys implied new").
   */
  readonly impliedNewKeys?: (key: Uint8Array) => readonly Uint8Array[];
  /** Keys implied new the store remembers at most (default raftqLimits.absentKeysMax). */
  readonly absentKeysMax?: number;
  /** Bytes the garbage ledger holds at most (default raftqLimits.gcLedgerBytesMax). */
  readonly garbageLedgerBytesMax?: number;
}

/** Deliberate faults of the apply step, for the whole-node simulator (test/sim-node) only. */
export interface MvccFaults {
  /** Optimistic validation forgets one key a transaction read (the first it does not also write): a concurrent change to it is not a conflict. */
  readonly skipReadValidation?: boolean;
}

/** What cachedValueAt answers when the caches cannot: the engine must be read. */
const notCached = Symbol('not cached');
/** Entries a one-pass read of several keys may walk per key before it leaves the rest to reads of their own. */
const onePassEntriesPerKey = 4;

/** Point reads that went to the engine, since the store opened (MvccStore.engineReadStats). */
export interface EngineReadStats {
  /** Keys read from the engine because the caches could not answer them. */
  keys: number;
  /** Of those, keys whose read could not teach the newest-version cache (a write or removal in the key's bucket meanwhile): their transaction's validation seeks them again. */
  keysUntaught: number;
  /** Iterators the reads opened: one per key read alone, one per pass over neighbouring keys. */
  iterators: number;
}

export interface ScanOptions {
  readonly limit: number;
  readonly reverse?: boolean;
}

export class MvccStore {
  private appliedIndexValue: number;
  private lastCommitTsValue: number;
  private readFloorTsValue = 0;
  private horizon: HorizonTracker;
  private readonly openViews = new OpenReadViews();
  private lockTail: Promise<unknown> = Promise.resolve();
  private readonly collector: VersionCollector;
  private readonly deadPrefixes: DeadPrefixCache;
  /** Newest versions of hot keys, so point reads and OCC validation skip the engine (see newest-version-cache.ts). */
  private readonly newestVersions: NewestVersionCache;
  /** Keys implied new and not written since (absent-key-set.ts). */
  private readonly absentKeys: AbsentKeySet;
  /** Counts batches written (apply and collection): a lookup learns a newest version only if none landed while it read. */
  private writeCount = 0;
  /** When each bucket of keys last changed: a point read learns a newest version only if its bucket did not change past its view. */
  private readonly changeStamps: KeyChangeStamps;
  private readonly engineReads: EngineReadStats = { keys: 0, keysUntaught: 0, iterators: 0 };
  /**
   * The least commit timestamp of a version applied since the current collection pass's first read
   * that gave collection work (AppliedBatch.hidingWrites), and the same since the last complete
   * pass's first read (Infinity: none). The pass may have read past such a version's key before it
   * was written; what it hides goes once the watermark reaches it.
   */
  private hidingTsSincePassRead = Infinity;
  private hidingTsSinceLastPassRead = Infinity;
  /**
   * What the apply step hid and marked since ledgerSinceTs (garbage-ledger.ts). Garbage made at or
   * before ledgerSinceTs is for passes over the keyspace to find; what was made after it, only the
   * ledger removes (planVersionGc's trackedAfterTs), so each version has one remover.
   */
  private readonly ledger: GarbageLedger;
  private ledgerSinceTs: number;
  /**
   * True once a pass that started with the horizon at or past ledgerSinceTs completed: it removed
   * all garbage made before, so the ledger holds all there is, and every step is the ledger's
   * (until the ledger must start over: an apply step without notes, or one past its bound). Until
   * then the ledger only records and every step is a pass's. The two never run together: a pass
   * tells its garbage from the ledger's by the version just newer than each, which must be the one
   * that hid it, and a marker goes only after every older version of its key.
   */
  private isLedgerComplete: boolean;
  /** What the pass under way started with (PassStart); a pass's first step sets it. */
  private passStart: PassStart = { horizonTs: -Infinity, trackedAfterTs: Infinity };

  /** Test-only deliberate faults (MvccStoreOptions.faults). */
  readonly faults: MvccFaults;
  /** MvccStoreOptions.impliedNewKeys. */
  readonly impliedNewKeys: ((key: Uint8Array) => readonly Uint8Array[]) | undefined;

  private constructor(
    readonly engine: Engine,
    applied: { appliedIndex: number; lastCommitTs: number },
    horizon: HorizonTracker,
    options: MvccStoreOptions,
  ) {
    this.faults = options.faults ?? {};
    this.impliedNewKeys = options.impliedNewKeys;
    this.absentKeys = new AbsentKeySet(options.absentKeysMax ?? raftqLimits.absentKeysMax.value);
    this.appliedIndexValue = applied.appliedIndex;
    this.lastCommitTsValue = applied.lastCommitTs;
    this.changeStamps = new KeyChangeStamps(applied.lastCommitTs);
    this.horizon = horizon;
    this.collector = new VersionCollector(engine);
    this.ledger = new GarbageLedger(options.garbageLedgerBytesMax ?? raftqLimits.gcLedgerBytesMax.value);
    this.ledgerSinceTs = applied.lastCommitTs;
    // A store nothing was ever applied to holds no garbage.
    this.isLedgerComplete = applied.appliedIndex === 0 && applied.lastCommitTs === 0;
    this.deadPrefixes = new DeadPrefixCache({
      prefixesMax: options.deadPrefixesMax ?? raftqLimits.deadPrefixesMax.value,
      deadKeysMin: options.deadPrefixKeysMin ?? raftqLimits.deadPrefixKeysMin.value,
    });
    this.newestVersions = new NewestVersionCache(
      options.newestVersionCache ?? {
        entriesMax: raftqLimits.newestVersionCacheEntriesMax.value,
        bytesMax: raftqLimits.newestVersionCacheBytesMax.value,
        valueBytesMax: raftqLimits.newestVersionCacheValueBytesMax.value,
      },
    );
  }

  static async open(engine: Engine, options: MvccStoreOptions = {}): Promise<MvccStore> {
    const historyMs = options.historyMs ?? raftqLimits.mvccHistoryMs.value;
    assert(
      Number.isSafeInteger(historyMs) && historyMs >= 0,
      () => `historyMs must be a non-negative integer, got ${historyMs}`,
    );
    const format = await engine.get(formatRowKey);
    if (format === undefined) {
      await engine.write([{ kind: 'put', key: formatRowKey, value: Uint8Array.of(stateFormatVersion) }], {
        sync: true,
      });
    } else if (format[0] !== stateFormatVersion) {
      throw new StateFormatError(format[0] ?? -1);
    }
    const appliedRow = await engine.get(appliedRowKey);
    const horizonRow = await engine.get(horizonRowKey);
    const historyUs = historyMs * 1000;
    return new MvccStore(
      engine,
      appliedRow === undefined ? { appliedIndex: 0, lastCommitTs: 0 } : decodeAppliedRow(appliedRow),
      horizonRow === undefined ? HorizonTracker.empty(historyUs) : HorizonTracker.decode(horizonRow, historyUs),
      options,
    );
  }

  /** The Raft index of the last applied entry (0 before any). */
  get appliedIndex(): number {
    return this.appliedIndexValue;
  }

  /** The commit timestamp of the last committed txn: every read at it is stable. */
  get lastCommitTs(): number {
    return this.lastCommitTsValue;
  }

  /** The replicated horizon H: transactions with an older startTsUs are too-old. */
  get horizonTs(): number {
    return this.horizon.horizonAt(this.lastCommitTsValue);
  }

  /** The horizon's state, which the apply step advances commit by commit. */
  get horizonTracker(): HorizonTracker {
    return this.horizon;
  }

  /** Reads below this timestamp fail: garbage collection may have removed what they need. */
  get readFloorTs(): number {
    return this.readFloorTsValue;
  }

  /** A registered view at the last applied commit timestamp; release() it when done. */
  readView(): ReadView {
    return new MvccReadView(this, this.openViews, this.lastCommitTsValue);
  }

  async getAt(key: Uint8Array, ts: number): Promise<Uint8Array | undefined> {
    this.checkReadable(ts);
    const cached = this.cachedValueAt(key, ts);
    if (cached !== notCached) return cached;
    // A read that found the key's newest version, or that it has none — nothing of its key's
    // bucket written above ts, nor removed while it read (key-change-stamps.ts) — teaches the
    // cache (as an OCC lookup would), so the validation of the transaction that read it, and the
    // next reads, skip the engine.
    const stamp = this.changeStamps.beforeRead(key);
    const iterator = this.engine.iterator({ gte: encodeVersionKey(key, ts), lt: versionsEnd(key) });
    this.engineReads.iterators++;
    let value: Uint8Array | undefined;
    try {
      const [found] = await iterator.next(1);
      value = found === undefined ? undefined : decodeVersionValue(found.value);
      this.engineReads.keys++;
      if (this.changeStamps.isNewestAt(stamp, ts))
        this.newestVersions.remember(key, found === undefined ? noVersionTs : commitTsOf(found.key), value, {
          isRead: true,
        });
      else this.engineReads.keysUntaught++;
    } finally {
      await iterator.close();
    }
    this.checkReadable(ts);
    return value;
  }

  /**
   * getAt of many keys. The keys the caches do not answer are read in one pass through the engine
   * when they lie close together (one-pass-point-reads.ts), and each one the pass did not reach
   * alone; every read teaches the cache as getAt's does.
   */
  async getManyAt(keys: readonly Uint8Array[], ts: number): Promise<Array<Uint8Array | undefined>> {
    this.checkReadable(ts);
    const values = new Array<Uint8Array | undefined>(keys.length).fill(undefined);
    const misses: number[] = [];
    keys.forEach((key, i) => {
      const cached = this.cachedValueAt(key, ts);
      if (cached === notCached) misses.push(i);
      else values[i] = cached;
    });
    if (misses.length <= 1) {
      await Promise.all(misses.map(async (i) => (values[i] = await this.getAt(keys[i] as Uint8Array, ts))));
      return values;
    }
    misses.sort((a, b) => compareBytes(keys[a] as Uint8Array, keys[b] as Uint8Array));
    // One place per distinct key; a key asked twice takes the answer of its first place.
    const distinct = misses.filter(
      (i, at) => at === 0 || compareBytes(keys[i] as Uint8Array, keys[misses[at - 1] as number] as Uint8Array) !== 0,
    );
    const distinctKeys = distinct.map((i) => keys[i] as Uint8Array);
    const stamps = distinctKeys.map((key) => this.changeStamps.beforeRead(key));
    this.engineReads.iterators++;
    const reads = await readInOnePass(this.engine, distinctKeys, ts, onePassEntriesPerKey * distinctKeys.length + 16);
    const unreached: number[] = [];
    distinct.forEach((i, at) => {
      const read = reads[at];
      if (read === undefined) {
        unreached.push(i);
        return;
      }
      values[i] = read.value;
      this.engineReads.keys++;
      if (this.changeStamps.isNewestAt(stamps[at] as ReadStamp, ts))
        this.newestVersions.remember(keys[i] as Uint8Array, read.foundTs, read.value, { isRead: true });
      else this.engineReads.keysUntaught++;
    });
    await Promise.all(unreached.map(async (i) => (values[i] = await this.getAt(keys[i] as Uint8Array, ts))));
    // Repeated keys take their first place's answer.
    misses.forEach((i, at) => {
      if (at > 0 && compareBytes(keys[i] as Uint8Array, keys[misses[at - 1] as number] as Uint8Array) === 0)
        values[i] = values[misses[at - 1] as number];
    });
    this.checkReadable(ts);
    return values;
  }

  /** What the caches know of `key` at `ts`: its value, undefined (no value at ts), or notCached (ask the engine). */
  private cachedValueAt(key: Uint8Array, ts: number): Uint8Array | undefined | typeof notCached {
    const newest = this.newestVersions.lookup(key);
    if (newest !== undefined && newest.commitTsUs <= ts) {
      if (!newest.isValue) return undefined;
      // The entry's own bytes, not a copy (ReadView.get: what a read returns is not to be changed);
      // an entry never changes its bytes in place, so the view stays what was read.
      if (newest.value !== undefined) return newest.value;
    } else if (newest === undefined && this.absentKeys.has(key)) return undefined;
    return notCached;
  }

  /** Up to `limit` live keys of [gte, lt) as of `ts`, in key order (descending with `reverse`). */
  async scanAt(range: KeyRange, ts: number, options: ScanOptions): Promise<KeyValue[]> {
    this.checkReadable(ts);
    assert(
      Number.isSafeInteger(options.limit) && options.limit > 0,
      () => `scan limit must be a positive integer, got ${options.limit}`,
    );
    const rows = options.reverse
      ? await scanReverseAt(this.engine, range, ts, options.limit)
      : await scanForwardAt(
          { engine: this.engine, deadPrefixes: this.deadPrefixes, lastCommitTs: this.lastCommitTsValue },
          range,
          ts,
          options.limit,
        );
    this.checkReadable(ts);
    return rows;
  }

  /** Dead runs remembered for forward scans (for tests and metrics). */
  get deadPrefixCount(): number {
    return this.deadPrefixes.size;
  }

  /** The commit timestamp of the newest version (value or deletion marker) of `key`, if any. */
  async latestCommitTs(key: Uint8Array): Promise<number | undefined> {
    const [newest] = await readRange(this.engine, { gte: versionsStart(key), lt: versionsEnd(key) }, 1);
    return newest === undefined ? undefined : commitTsOf(newest.key);
  }

  /**
   * latestCommitTs of many keys (for validating a batch of txns): the keys in order, split over a
   * few iterators that seek concurrently, since each seek is a round trip to the engine.
   */
  async latestCommitTsOfKeys(keys: readonly Uint8Array[]): Promise<Array<number | undefined>> {
    return (await this.latestVersionsOfKeys(keys)).map((version) => version?.commitTsUs);
  }

  /** Like latestCommitTsOfKeys, and whether each newest version is a value (not a deletion marker). */
  latestVersionsOfKeys(
    keys: readonly Uint8Array[],
    hashes?: readonly number[],
  ): Promise<Array<LatestVersion | undefined>> {
    return latestVersionsOfKeys(
      {
        engine: this.engine,
        newestVersions: this.newestVersions,
        absentKeys: this.absentKeys,
        writeCount: () => this.writeCount,
      },
      keys,
      hashes,
    );
  }

  async getSystemRow(key: Uint8Array): Promise<Uint8Array | undefined> {
    assert(key[0] === systemRowMarker, 'system rows start with 0x00');
    return this.engine.get(key);
  }

  async getSystemRows(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    assert(
      keys.every((key) => key[0] === systemRowMarker),
      'system rows start with 0x00',
    );
    return this.engine.getMany(keys);
  }

  async scanSystemRows(range: KeyRange, limit: number): Promise<EngineEntry[]> {
    assert(
      range.gte[0] === systemRowMarker && compareBytes(range.lt, userSpaceStart) <= 0,
      'a system scan stays below user space',
    );
    return readRange(this.engine, { gte: range.gte, lt: range.lt }, limit);
  }

  /**
   * Runs one apply step exclusively (no other apply or collection step interleaves): `build`
   * reads what it needs and returns the batch, which is written as one engine batch with the
   * applied row. The in-memory applied index and lastCommitTs move only once the write is done.
   */
  async applyExclusive<T>(
    build: () => Promise<{ batch: AppliedBatch; result: T }>,
    options: { readonly sync: boolean },
  ): Promise<T> {
    return this.exclusive(async () => {
      const { batch, result } = await build();
      const writes = engineWritesOf(batch, {
        appliedIndex: this.appliedIndexValue,
        lastCommitTs: this.lastCommitTsValue,
        horizon: this.horizon,
      });
      await this.engine.write(writes, { sync: options.sync });
      this.deadPrefixes.noteWrites(batch.versions);
      this.writeCount += 1;
      if (batch.garbage !== undefined && this.ledger.record(batch.garbage)) {
        // Tracked: the ledger removes it, no pass needs to look for it.
      } else if ((batch.hidingWrites ?? batch.versions.length) > 0 || batch.garbage !== undefined) {
        // Garbage the ledger does not hold: passes must find it, and the ledger starts over after it.
        this.restartLedger(batch.lastCommitTs);
        // The batch's first version is no newer than its first hiding one: an earlier time is safe.
        const hidingTs = batch.versions[0]?.commitTsUs ?? 0;
        this.hidingTsSincePassRead = Math.min(this.hidingTsSincePassRead, hidingTs);
        this.hidingTsSinceLastPassRead = Math.min(this.hidingTsSinceLastPassRead, hidingTs);
      }
      // Before the versions: a key implied new by one write of the batch may be written by a later one.
      for (const key of batch.absentKeys ?? []) this.absentKeys.add(key);
      for (const version of batch.versions) {
        // One hash of the key for all three (key-hash.ts).
        const hash = keyHashOf(version.key);
        this.absentKeys.forget(version.key, hash);
        this.changeStamps.noteWrite(version.key, version.commitTsUs, hash);
        this.newestVersions.remember(version.key, version.commitTsUs, version.value, undefined, hash);
      }
      this.appliedIndexValue = batch.appliedIndex;
      this.lastCommitTsValue = batch.lastCommitTs;
      this.horizon = batch.horizon;
      return result;
    });
  }

  /**
   * Forgets the ledger: garbage made up to `sinceTs` is left to passes over the keyspace (which
   * now leave only what comes after it to the ledger), until one that starts with the horizon at
   * `sinceTs` completes.
   */
  private restartLedger(sinceTs: number): void {
    this.ledger.clear();
    this.ledgerSinceTs = sinceTs;
    this.isLedgerComplete = false;
  }

  /** The garbage ledger's size, and whether it holds all the garbage there is (no pass needed). */
  get garbageLedger(): { readonly entries: number; readonly bytes: number; readonly isComplete: boolean } {
    return { entries: this.ledger.entryCount, bytes: this.ledger.sizeBytes, isComplete: this.isLedgerComplete };
  }

  /**
   * The commit timestamp of `key`'s newest version if the newest-version cache holds it and it is a
   * value; a peek that counts and moves nothing. For the garbage ledger's notes only: never for a
   * decision (the cache differs between replicas).
   */
  cachedNewestCommitTs(key: Uint8Array, hash?: number): number | undefined {
    return this.newestVersions.peekValueCommitTs(key, hash);
  }

  /** Keys the store knows to have no version (absent-key-set.ts), bounded by absentKeysMax. */
  get absentKeyCount(): number {
    return this.absentKeys.size;
  }

  /** Entries and bytes (NewestVersionCacheOptions.bytesMax's measure) the newest-version cache holds now. */
  get newestVersionCacheSize(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.newestVersions.size, bytes: this.newestVersions.sizeBytes };
  }

  /**
   * Whether the newest-version cache keeps values nobody has read yet (NewestVersionCache.keepsUnreadValues):
   * on for a leader, which serves receives from what it applied; off for a follower. Reads and
   * outcomes do not depend on it, only which reads reach the engine.
   */
  setKeepsUnreadValues(isKept: boolean): void {
    this.newestVersions.keepsUnreadValues = isKept;
  }

  /**
   * One bounded step of garbage collection, plan then finish: of the garbage ledger once it is
   * complete (garbage-ledger.ts, ledger-collection.ts), else of a pass over the keyspace
   * (version-gc.ts says what goes).
   */
  async collectGarbage(options: { readonly rowsMax?: number; readonly bytesMax?: number } = {}): Promise<GcStepReport> {
    return this.finishGarbageStep(await this.planGarbageStep(options));
  }

  /**
   * The first half of a collection step: computes the watermarks, reads the step's rows and decides
   * what may go, without the exclusive section, so applies go on meanwhile (the Ready loop is not
   * held while the rows are read). Removes nothing. Why deciding on rows an apply may have moved
   * past is safe:
   * - the rows come from one engine iterator: one consistent state, a little older than the finish;
   * - an apply only adds versions newer than every existing one (commit timestamps rise), so a
   *   version hidden below the watermark by a newer one stays hidden, and a deletion marker at or
   *   below the horizon that a new value now covers is an older version of that key, removable too;
   *   versions written after the read are not in the plan and stay;
   * - the watermarks only rise, and a reader that arrives after the plan reads at or above the
   *   watermark it was computed with (new views open at the last commit timestamp), so the floor the
   *   finish raises to it is no higher than the one the step would have raised at once;
   * - one step is in flight at a time, and the finish refuses a plan not made where the pass is.
   * A ledger step reads nothing but the version a vouched delete hid (one seek each), and is safe
   * for the same reasons: what it removes was hidden below the watermark or is a marker at or
   * below the horizon, which stays so; its finish removes nothing if the ledger started over.
   */
  async planGarbageStep(
    options: { readonly rowsMax?: number; readonly bytesMax?: number } = {},
  ): Promise<GcStepPlanOfStore> {
    const rowsMax = options.rowsMax ?? raftqLimits.gcRowsPerStepMax.value;
    const bytesMax = options.bytesMax ?? raftqLimits.gcBytesPerStepMax.value;
    assert(Number.isSafeInteger(rowsMax) && rowsMax > 0, () => `rowsMax must be a positive integer, got ${rowsMax}`);
    assert(
      Number.isSafeInteger(bytesMax) && bytesMax > 0,
      () => `bytesMax must be a positive integer, got ${bytesMax}`,
    );
    const horizonTs = this.horizonTs;
    const watermarkTs = this.readWatermarkTs(horizonTs);
    if (this.isLedgerComplete) {
      const step = await planLedgerStep(this.engine, this.ledger, {
        watermarkTs,
        horizonTs,
        entriesMax: options.rowsMax ?? raftqLimits.gcLedgerEntriesPerStepMax.value,
      });
      return { kind: 'ledger', step, store: this };
    }
    // Before the read: a hiding write applied while it runs counts against the pass.
    if (this.collector.isAtPassStart) this.hidingTsSincePassRead = Infinity;
    const trackedAfterTs = this.ledgerSinceTs;
    const pass = this.collector.isAtPassStart ? { horizonTs, trackedAfterTs } : this.passStart;
    this.passStart = pass;
    const step = await this.collector.plan({ rowsMax, bytesMax, watermarkTs, horizonTs, trackedAfterTs });
    return { kind: 'pass', step, store: this, pass };
  }

  /** The second half of a collection step, in the exclusive section: removes what the plan chose. */
  async finishGarbageStep(plan: GcStepPlanOfStore): Promise<GcStepReport> {
    assert(plan.store === this, 'a garbage-collection plan of another store');
    return this.exclusive(async () => {
      // Raise the floor before removing anything, so a read racing with the removal fails instead of seeing a partial state.
      this.readFloorTsValue = Math.max(this.readFloorTsValue, plan.step.watermarkTs);
      const onRemoved = (removedBases: readonly Uint8Array[]): void => {
        this.writeCount += 1;
        // A removed newest deletion marker leaves its key without versions: the cache must say so
        // too. Only a removed base can be a key's newest version, so only those are looked up.
        for (const physical of removedBases) {
          const key = logicalKeyOf(physical);
          this.changeStamps.noteRemoval(key);
          this.newestVersions.forgetVersion(key, commitTsOf(physical));
        }
      };
      if (plan.kind === 'ledger') return this.collector.finishLedgerStep(plan.step, this.ledger, onRemoved);
      const report = await this.collector.finish(plan.step, onRemoved);
      if (report.isPassComplete) {
        this.hidingTsSinceLastPassRead = this.hidingTsSincePassRead;
        // Every garbage version made up to ledgerSinceTs was due when the pass read it, and the
        // ledger holds the rest: were the ledger restarted meanwhile, this pass left it too much.
        if (plan.pass.horizonTs >= this.ledgerSinceTs && plan.pass.trackedAfterTs === this.ledgerSinceTs)
          this.isLedgerComplete = true;
      }
      return report;
    });
  }

  /**
   * Whether a collection step would remove something now: with a complete ledger, whether any of
   * its entries is due; before, whether a pass is worth its read of the whole keyspace
   * (isPassWanted).
   */
  get hasGarbageToCollect(): boolean {
    const horizonTs = this.horizonTs;
    const watermarkTs = this.readWatermarkTs(horizonTs);
    if (this.isLedgerComplete) return this.ledger.hasDue(watermarkTs, horizonTs);
    return this.isPassWanted(watermarkTs, horizonTs);
  }

  /**
   * Whether a pass over the keyspace is worth its read while the ledger is not complete: once the
   * horizon reaches ledgerSinceTs, the pass that makes it complete. Before that, unknown (true)
   * until a pass completes; then once the watermark reaches a version that hides one the last pass
   * kept, or one applied since that pass started without ledger notes (GcPlan.freesAt), or the
   * horizon reaches the newest of the markers it kept as their keys' newest versions. Those markers
   * go together: were each horizon checkpoint to start a pass for the markers it frees, a node that
   * stopped consuming would read its whole keyspace every checkpoint (historyMs/16) for historyMs.
   */
  private isPassWanted(watermarkTs: number, horizonTs: number): boolean {
    if (horizonTs >= this.ledgerSinceTs) return true;
    const kept = this.collector.lastPassFreesAt;
    if (kept === undefined) return true;
    return (
      (kept.lastMarkerTs !== -Infinity && horizonTs >= kept.lastMarkerTs) ||
      watermarkTs >= Math.min(kept.watermarkTs, this.hidingTsSinceLastPassRead)
    );
  }

  /** The read watermark W (see the top of this file) now, given the horizon now. */
  private readWatermarkTs(horizonTs: number): number {
    return Math.max(
      this.readFloorTsValue,
      horizonTs,
      Math.min(this.openViews.oldestTs() ?? this.lastCommitTsValue, this.lastCommitTsValue),
    );
  }

  get gcStats(): GcStats {
    return this.collector.stats;
  }

  /** Point reads (getAt, getManyAt) that went to the engine since the store opened. */
  get engineReadStats(): Readonly<EngineReadStats> {
    return this.engineReads;
  }

  /** Makes every applied batch durable (before the Raft log is compacted past it). */
  async flush(): Promise<void> {
    await this.engine.flush();
  }

  /** Read views not yet released. */
  get openViewCount(): number {
    return this.openViews.count;
  }

  private checkReadable(ts: number): void {
    assert(Number.isSafeInteger(ts) && ts >= 0, () => `read ts must be a non-negative safe integer, got ${ts}`);
    if (ts < this.readFloorTsValue) throw new ReadBelowWatermarkError(ts, this.readFloorTsValue);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lockTail.then(work);
    this.lockTail = result.catch(() => undefined);
    return result;
  }
}
