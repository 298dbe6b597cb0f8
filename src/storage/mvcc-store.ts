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
import { compareBytes } from './key-codec.js';
import { HorizonTracker } from './horizon.js';
import { latestVersionsOfKeys, type LatestVersion } from './latest-version-lookup.js';
import { ReadBelowWatermarkError, StateFormatError } from './mvcc-errors.js';
import { scanForwardAt, scanReverseAt } from './mvcc-range-scan.js';
import { MvccReadView, OpenReadViews } from './mvcc-read-view.js';
import { NewestVersionCache, noVersionTs, type NewestVersionCacheOptions } from './newest-version-cache.js';
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

/** A collection step read and decided, not yet finished (MvccStore.planGarbageStep). */
export interface GcStepPlanOfStore {
  readonly step: GcStepPlan;
  readonly store: MvccStore;
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
}

/** Deliberate faults of the apply step, for the whole-node simulator (test/sim-node) only. */
export interface MvccFaults {
  /** Optimistic validation forgets one key a transaction read (the first it does not also write): a concurrent change to it is not a conflict. */
  readonly skipReadValidation?: boolean;
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
  /**
   * The least commit timestamp of a version applied since the current collection pass's first read
   * that gave collection work (AppliedBatch.hidingWrites), and the same since the last complete
   * pass's first read (Infinity: none). The pass may have read past such a version's key before it
   * was written; what it hides goes once the watermark reaches it.
   */
  private hidingTsSincePassRead = Infinity;
  private hidingTsSinceLastPassRead = Infinity;

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
    this.horizon = horizon;
    this.collector = new VersionCollector(engine);
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
      `historyMs must be a non-negative integer, got ${historyMs}`,
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
    const newest = this.newestVersions.lookup(key);
    if (newest !== undefined && newest.commitTsUs <= ts) {
      if (!newest.isValue) return undefined;
      // The entry's own bytes, not a copy (ReadView.get: what a read returns is not to be changed);
      // an entry never changes its bytes in place, so the view stays what was read.
      if (newest.value !== undefined) return newest.value;
    } else if (newest === undefined && this.absentKeys.has(key)) return undefined;
    // A read at or above the last commit, with no batch written while it read, finds the key's
    // newest version, or that it has none: the cache learns it (as an OCC lookup would), so the
    // validation of the transaction that read it, and the next reads, skip the engine.
    const isNewestRead = ts >= this.lastCommitTsValue;
    const writesBefore = this.writeCount;
    const iterator = this.engine.iterator({ gte: encodeVersionKey(key, ts), lt: versionsEnd(key) });
    let value: Uint8Array | undefined;
    try {
      const [found] = await iterator.next(1);
      value = found === undefined ? undefined : decodeVersionValue(found.value);
      if (isNewestRead && this.writeCount === writesBefore)
        this.newestVersions.remember(key, found === undefined ? noVersionTs : commitTsOf(found.key), value, {
          isRead: true,
        });
    } finally {
      await iterator.close();
    }
    this.checkReadable(ts);
    return value;
  }

  /** Up to `limit` live keys of [gte, lt) as of `ts`, in key order (descending with `reverse`). */
  async scanAt(range: KeyRange, ts: number, options: ScanOptions): Promise<KeyValue[]> {
    this.checkReadable(ts);
    assert(
      Number.isSafeInteger(options.limit) && options.limit > 0,
      `scan limit must be a positive integer, got ${options.limit}`,
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
  latestVersionsOfKeys(keys: readonly Uint8Array[]): Promise<Array<LatestVersion | undefined>> {
    return latestVersionsOfKeys(
      {
        engine: this.engine,
        newestVersions: this.newestVersions,
        absentKeys: this.absentKeys,
        writeCount: () => this.writeCount,
      },
      keys,
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
      if ((batch.hidingWrites ?? batch.versions.length) > 0) {
        // The batch's first version is no newer than its first hiding one: an earlier time is safe.
        const hidingTs = batch.versions[0]?.commitTsUs ?? 0;
        this.hidingTsSincePassRead = Math.min(this.hidingTsSincePassRead, hidingTs);
        this.hidingTsSinceLastPassRead = Math.min(this.hidingTsSinceLastPassRead, hidingTs);
      }
      // Before the versions: a key implied new by one write of the batch may be written by a later one.
      for (const key of batch.absentKeys ?? []) this.absentKeys.add(key);
      for (const version of batch.versions) {
        this.absentKeys.forget(version.key);
        this.newestVersions.remember(version.key, version.commitTsUs, version.value);
      }
      this.appliedIndexValue = batch.appliedIndex;
      this.lastCommitTsValue = batch.lastCommitTs;
      this.horizon = batch.horizon;
      return result;
    });
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

  /** One bounded step of garbage collection (see version-gc.ts for what goes): plan, then finish. */
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
   */
  async planGarbageStep(
    options: { readonly rowsMax?: number; readonly bytesMax?: number } = {},
  ): Promise<GcStepPlanOfStore> {
    const rowsMax = options.rowsMax ?? raftqLimits.gcRowsPerStepMax.value;
    const bytesMax = options.bytesMax ?? raftqLimits.gcBytesPerStepMax.value;
    assert(Number.isSafeInteger(rowsMax) && rowsMax > 0, `rowsMax must be a positive integer, got ${rowsMax}`);
    assert(Number.isSafeInteger(bytesMax) && bytesMax > 0, `bytesMax must be a positive integer, got ${bytesMax}`);
    const horizonTs = this.horizonTs;
    const watermarkTs = this.readWatermarkTs(horizonTs);
    // Before the read: a hiding write applied while it runs counts against the pass.
    if (this.collector.isAtPassStart) this.hidingTsSincePassRead = Infinity;
    const step = await this.collector.plan({ rowsMax, bytesMax, watermarkTs, horizonTs });
    return { step, store: this };
  }

  /** The second half of a collection step, in the exclusive section: removes what the plan chose. */
  async finishGarbageStep(plan: GcStepPlanOfStore): Promise<GcStepReport> {
    assert(plan.store === this, 'a garbage-collection plan of another store');
    return this.exclusive(async () => {
      // Raise the floor before removing anything, so a read racing with the removal fails instead of seeing a partial state.
      this.readFloorTsValue = Math.max(this.readFloorTsValue, plan.step.watermarkTs);
      const report = await this.collector.finish(plan.step, (removedBases) => {
        this.writeCount += 1;
        // A removed newest deletion marker leaves its key without versions: the cache must say so
        // too. Only a removed base can be a key's newest version, so only those are looked up.
        for (const physical of removedBases)
          this.newestVersions.forgetVersion(logicalKeyOf(physical), commitTsOf(physical));
      });
      if (report.isPassComplete) this.hidingTsSinceLastPassRead = this.hidingTsSincePassRead;
      return report;
    });
  }

  /**
   * Whether a collection pass is worth its read of the whole keyspace now. Unknown (true) until a
   * pass completes; then once the watermark reaches a version that hides one the last pass kept,
   * or one applied since that pass started (GcPlan.freesAt), or the horizon reaches the newest of
   * the markers it kept as their keys' newest versions. Those markers go together: were each
   * horizon checkpoint to start a pass for the markers it frees, a node that stopped consuming
   * would read its whole keyspace every checkpoint (historyMs/16) for historyMs. A marker lives at
   * most historyMs longer for it; a hidden version never waits. A node taking only sends, whose
   * keys are all new, collects nothing.
   */
  get hasGarbageToCollect(): boolean {
    const kept = this.collector.lastPassFreesAt;
    if (kept === undefined) return true;
    const horizonTs = this.horizonTs;
    return (
      (kept.lastMarkerTs !== -Infinity && horizonTs >= kept.lastMarkerTs) ||
      this.readWatermarkTs(horizonTs) >= Math.min(kept.watermarkTs, this.hidingTsSinceLastPassRead)
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

  /** Makes every applied batch durable (before the Raft log is compacted past it). */
  async flush(): Promise<void> {
    await this.engine.flush();
  }

  /** Read views not yet released. */
  get openViewCount(): number {
    return this.openViews.count;
  }

  private checkReadable(ts: number): void {
    assert(Number.isSafeInteger(ts) && ts >= 0, `read ts must be a non-negative safe integer, got ${ts}`);
    if (ts < this.readFloorTsValue) throw new ReadBelowWatermarkError(ts, this.readFloorTsValue);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lockTail.then(work);
    this.lockTail = result.catch(() => undefined);
    return result;
  }
}
