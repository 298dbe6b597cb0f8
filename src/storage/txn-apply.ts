/**
 * The apply step of committed Raft entries: validates each transaction (OCC) and writes the
 * committed ones, deterministically, so every replica reaches the same state and the same
 * outcomes from the same entries, however the entries are grouped into calls and whatever its
 * local garbage-collection progress.
 *
 * For each entry, in log order, at entry time floor(max(leaderStampTsUs, lastCommitTs) / 1000) ms:
 * 1. expire up to txnIdExpiryRowsPerEntryMax txn ids recorded more than txnIdRetentionMs ago;
 * then for each txn, in order:
 * 2. a txn id still in the table → its first outcome, nothing else happens;
 * 3. |nowMs − leaderStampTsUs| > clockSkewMsMax → clock-skew;
 * 4. startTsUs below the horizon (horizon.ts: about mvccHistoryMs of commit time back) → too-old:
 *    its reads can no longer be validated exactly;
 * 5. a read or written key with a version newer than startTsUs → conflict (first committer wins;
 *    an earlier txn of the same entry counts, through the keys it wrote; a put the proposer
 *    vouched for as a new key (TxnWrite.isNewKey) is taken to have no older version, unread); a startTsUs above
 *    lastCommitTs (reads at a time nothing has been committed at yet; only a broken proposer
 *    sends one) is a conflict too;
 * 6. otherwise commit at commitTsUs = max(lastCommitTs + 1, leaderStampTsUs): every write becomes a
 *    version at commitTsUs (the last write of a key in a txn wins).
 * Every outcome is recorded under its txn id. All entries of one call are one engine batch,
 * with the applied index; an entry without txns (Raft no-op, membership change) still advances it.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';
import { raftqLimits } from '../base/limits.js';
import type { EngineWrite } from './engine.js';
import { emptyGarbageNotes, unknownTs, type GarbageNotes } from './garbage-ledger.js';
import type { HorizonTracker } from './horizon.js';
import { bytesEqual, compareBytes } from './key-codec.js';
import { keyHashOf } from './key-hash.js';
import { noVersionTs } from './newest-version-cache.js';
import type { MvccStore, VersionWrite } from './mvcc-store.js';
import { systemKey, txnExpiryRowKey, txnExpiryRows, txnRowKey } from './system-keys.js';
import type { Txn, TxnOutcome, TxnWrite } from './txn.js';
import {
  decodeTxnExpiryRowKey,
  decodeTxnIdRecord,
  encodeTxnIdRecord,
  isTxnIdExpired,
  type TxnIdRecord,
} from './txn-id-table.js';

export interface ApplyEntry {
  readonly index: number;
  /** The leader's stamp of the entry in microseconds (0 for entries without txns is fine). */
  readonly leaderStampTsUs: number;
  readonly txns: readonly Txn[];
}

export interface ApplyEntriesResult {
  /** outcomes[i][j] is the outcome of entries[i].txns[j]. */
  readonly outcomes: TxnOutcome[][];
  /** Every write of a committed txn, in apply order (a key may repeat). */
  readonly writes: TxnWrite[];
  /** Each committed write that gave a key a value it lacked, or removed the value it had, in apply order (for counting live rows without scanning). */
  readonly liveKeyChanges: LiveKeyChange[];
  /** Versions written: one per distinct key of each committed txn (a key written twice by one txn is one version). */
  readonly versionsWritten: number;
  readonly appliedIndex: number;
  readonly lastCommitTs: number;
}

export interface LiveKeyChange {
  readonly key: Uint8Array;
  /** True: the key has a value now and had none; false: its value was deleted. */
  readonly isLive: boolean;
}

/** Rules of the apply step. Every replica must use the same values: they decide outcomes. */
export interface TxnApplyRules {
  readonly clockSkewMsMax: number;
  readonly txnIdRetentionMs: number;
  readonly txnIdExpiryRowsPerEntryMax: number;
}

export const defaultTxnApplyRules: TxnApplyRules = {
  clockSkewMsMax: raftqLimits.clockSkewMsMax.value,
  txnIdRetentionMs: raftqLimits.txnIdRetentionMs.value,
  txnIdExpiryRowsPerEntryMax: raftqLimits.txnIdExpiryRowsPerEntryMax.value,
};

export interface ApplyEntriesOptions {
  /** Sync the batch (default false: the Raft log is the durable record; flush before compacting it). */
  readonly sync?: boolean;
  readonly rules?: TxnApplyRules;
}

export async function applyEntries(
  store: MvccStore,
  entries: readonly ApplyEntry[],
  options: ApplyEntriesOptions = {},
): Promise<ApplyEntriesResult> {
  if (entries.length === 0)
    return {
      outcomes: [],
      writes: [],
      liveKeyChanges: [],
      versionsWritten: 0,
      appliedIndex: store.appliedIndex,
      lastCommitTs: store.lastCommitTs,
    };
  const rules = options.rules ?? defaultTxnApplyRules;
  return store.applyExclusive(
    async () => {
      entries.forEach((entry, i) =>
        assert(
          entry.index === store.appliedIndex + 1 + i,
          () =>
            `entries must follow the applied index ${store.appliedIndex} without gaps; got index ${entry.index} at position ${i}`,
        ),
      );
      const step = new ApplyStep(store, rules);
      await step.prefetch(entries);
      const outcomes: TxnOutcome[][] = [];
      for (const entry of entries) outcomes.push(await step.applyEntry(entry));
      txnExpiryFloorMs.set(store, step.expiryFloorMs);
      const last = entries[entries.length - 1] as ApplyEntry;
      const result: ApplyEntriesResult = {
        outcomes,
        writes: step.writes,
        liveKeyChanges: step.liveKeyChanges,
        versionsWritten: step.versionsWritten,
        appliedIndex: last.index,
        lastCommitTs: step.lastCommitTs,
      };
      return {
        batch: {
          versions: step.versions,
          absentKeys: step.absentKeys,
          systemWrites: step.systemWrites,
          appliedIndex: last.index,
          lastCommitTs: step.lastCommitTs,
          horizon: step.horizon,
          hidingWrites: step.hidingWrites,
          garbage: step.garbage,
        },
        result,
      };
    },
    { sync: options.sync ?? false },
  );
}

/** Identity of a key in maps (latin1 keeps every byte as one UTF-16 unit). */
function keyId(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/**
 * Per store, a floor under the recordedAtMs of every txn-expiry row in its engine (0: unknown), so
 * that an entry with nothing to expire skips the scan. A cache of this process only: it changes
 * which reads are made, never what the apply step decides.
 */
const txnExpiryFloorMs = new WeakMap<MvccStore, number>();

interface ExpiryRow {
  readonly recordedAtMs: number;
  readonly txnId: string;
  readonly rowKey: Uint8Array;
}

/** The state of one apply call: what the engine held when it started, plus this call's writes. */
/** The skipReadValidation fault: the read keys but the first one the transaction does not also write (a written key is validated as a write anyway). */
function withoutFirstReadOnlyKey(txn: Txn): readonly Uint8Array[] {
  const written = new Set(txn.writes.map((write) => keyId(write.key)));
  const skipped = txn.readKeys.findIndex((key) => !written.has(keyId(key)));
  return skipped < 0 ? txn.readKeys : txn.readKeys.filter((_, i) => i !== skipped);
}

/** How the txns of one apply call name a key (bits of KeyState.use). */
const keyUse = {
  none: 0,
  /** Read, or written without a vouch: its newest version is looked up. */
  looked: 1,
  /** Put with TxnWrite.isNewKey. */
  vouchedNew: 2,
  /** Deleted with TxnWrite.isLiveKey. */
  vouchedLive: 4,
} as const;

/** One key as an apply call knows it: its newest version, kept current through the call's writes. */
interface KeyState {
  readonly key: Uint8Array;
  /** keyHashOf(key), computed once and handed to the cache lookups (key-hash.ts). */
  readonly hash: number;
  use: number;
  /** Commit timestamp of its newest version; undefined: none (or vouched, so not looked up). */
  latestCommitTs: number | undefined;
  /** Whether its newest version is a value. */
  isLive: boolean;
  /** The commitSequence of the last commit of this call that wrote it. */
  committedIn: number;
  /**
   * For the garbage ledger only (never for a decision): the newest version's commit timestamp as
   * the newest-version cache knew it, for a key vouched live and so not looked up.
   */
  cachedNewestTs: number | undefined;
  /** For the garbage ledger: the version the txn now committing hides (noPriorTs, unknownTs, or its timestamp). */
  hiddenTs: number;
  /** The commitSequence whose garbage notes named this key. */
  notedIn: number;
  /** The next state whose key has the same hash (keyStatesByHash). */
  sameHash: KeyState | undefined;
}

/** KeyState.hiddenTs of a key whose newest version before the txn needs no hidden entry. */
const noPriorTs = -2;

/**
 * For the garbage ledger: the value a txn's first write of the key hides (its newest version
 * before the txn), unknownTs when it is a value the call did not look up, noPriorTs when there is
 * none, or it is a marker (a marker has an entry of its own, written with it: one entry per
 * version, so no version is removed, and counted, twice).
 */
function hiddenVersionTs(state: KeyState): number {
  if (!state.isLive) return noPriorTs;
  return state.latestCommitTs ?? state.cachedNewestTs ?? unknownTs;
}

class ApplyStep {
  readonly versions: VersionWrite[] = [];
  /** Keys the committed new-key writes imply never had a version (MvccStoreOptions.impliedNewKeys). */
  readonly absentKeys: Uint8Array[] = [];
  readonly systemWrites: EngineWrite[] = [];
  readonly writes: TxnWrite[] = [];
  readonly liveKeyChanges: LiveKeyChange[] = [];
  versionsWritten = 0;
  /** AppliedBatch.hidingWrites. */
  hidingWrites = 0;
  /** AppliedBatch.garbage: what this call hid and marked, for the store's garbage ledger. */
  readonly garbage: GarbageNotes = emptyGarbageNotes();
  lastCommitTs: number;
  horizon: HorizonTracker;
  expiryFloorMs: number;
  /** What this call knows of each key its txns name, in the order first named. */
  private readonly keyStates: KeyState[] = [];
  /**
   * The same states by the hash of their key (key-hash.ts), those of one hash chained on
   * `sameHash`: a follower's keys are views decoded from the entry, a new object per mention, and
   * a lookup by hash and bytes costs less than making each one a string to key a Map.
   */
  private readonly keyStatesByHash = new Map<number, KeyState>();
  /**
   * The same states by key object: a txn's key objects are met in prefetch, decide and commit,
   * and a lookup by identity costs less than decoding the key to its id each time.
   */
  private readonly keyStatesByObject = new Map<Uint8Array, KeyState>();
  /** Counts commits of this call, so that commit() counts each key a txn writes once without a set. */
  private commitSequence = 0;
  private readonly txnIds = new Map<string, TxnIdRecord | undefined>();
  /** Expiry rows written by this call (not yet in the engine), by key id. */
  private readonly insertedExpiryRows = new Map<string, ExpiryRow>();
  /** Expiry rows of the engine deleted by this call, by key id. */
  private readonly deletedExpiryRows = new Set<string>();

  constructor(
    private readonly store: MvccStore,
    private readonly rules: TxnApplyRules,
  ) {
    this.lastCommitTs = store.lastCommitTs;
    this.horizon = store.horizonTracker;
    this.expiryFloorMs = txnExpiryFloorMs.get(store) ?? 0;
  }

  private stateOf(key: Uint8Array): KeyState {
    const known = this.keyStatesByObject.get(key);
    if (known !== undefined) return known;
    const hash = keyHashOf(key);
    const first = this.keyStatesByHash.get(hash);
    let state = first;
    while (state !== undefined && !bytesEqual(state.key, key)) state = state.sameHash;
    if (state === undefined) {
      state = {
        key,
        hash,
        use: keyUse.none,
        latestCommitTs: undefined,
        isLive: false,
        committedIn: 0,
        cachedNewestTs: undefined,
        hiddenTs: noPriorTs,
        notedIn: 0,
        sameHash: first,
      };
      this.keyStatesByHash.set(hash, state);
      this.keyStates.push(state);
    }
    this.keyStatesByObject.set(key, state);
    return state;
  }

  /** Reads, all at once, the newest version of every key and the record of every txn id the entries name. */
  async prefetch(entries: readonly ApplyEntry[]): Promise<void> {
    const txnIds = new Set<string>();
    for (const entry of entries) {
      for (const txn of entry.txns) {
        txnIds.add(txn.txnId);
        for (const key of txn.readKeys) this.stateOf(key).use |= keyUse.looked;
        for (const write of txn.writes) {
          const use =
            write.kind === 'put' && write.isNewKey === true
              ? keyUse.vouchedNew
              : write.kind === 'delete' && write.isLiveKey === true
                ? keyUse.vouchedLive
                : keyUse.looked;
          this.stateOf(write.key).use |= use;
        }
      }
    }
    // A vouched key is not read: one vouched new starts this call with no version, one vouched
    // live with a value whose version no rival can have moved past the txn's start unseen (its
    // read keys catch every rival), so no conflict is found on it. A key some txn also reads, or
    // writes without a vouch, or vouches both ways, is read like any other.
    const looked: KeyState[] = [];
    for (const state of this.keyStates) {
      if ((state.use & keyUse.looked) !== 0 || state.use === (keyUse.vouchedNew | keyUse.vouchedLive))
        looked.push(state);
      else {
        state.isLive = state.use === keyUse.vouchedLive;
        // What the garbage ledger records of the version a vouched delete hides: free when cached.
        if (state.isLive) state.cachedNewestTs = this.store.cachedNewestCommitTs(state.key, state.hash);
      }
    }
    const idList = [...txnIds];
    const [latest, records] = await Promise.all([
      this.store.latestVersionsOfKeys(
        looked.map((state) => state.key),
        looked.map((state) => state.hash),
      ),
      this.store.getSystemRows(idList.map(txnRowKey)),
    ]);
    looked.forEach((state, i) => {
      state.latestCommitTs = latest[i]?.commitTsUs;
      state.isLive = latest[i]?.isValue === true;
    });
    idList.forEach((id, i) => {
      const row = records[i];
      this.txnIds.set(id, row === undefined ? undefined : decodeTxnIdRecord(row));
    });
  }

  async applyEntry(entry: ApplyEntry): Promise<TxnOutcome[]> {
    assert(
      Number.isSafeInteger(entry.leaderStampTsUs) && entry.leaderStampTsUs >= 0,
      () => `leaderStampTsUs must be a non-negative safe integer, got ${entry.leaderStampTsUs}`,
    );
    const entryTimeMs = Math.floor(Math.max(entry.leaderStampTsUs, this.lastCommitTs) / 1000);
    await this.expireTxnIds(entryTimeMs);
    return entry.txns.map((txn) => this.applyTxn(txn, entry.leaderStampTsUs, entryTimeMs));
  }

  private applyTxn(txn: Txn, leaderStampTsUs: number, entryTimeMs: number): TxnOutcome {
    const known = this.txnIds.get(txn.txnId);
    if (known !== undefined && !isTxnIdExpired(known.recordedAtMs, entryTimeMs, this.rules.txnIdRetentionMs))
      return known.outcome;
    const outcome = this.decide(txn, leaderStampTsUs);
    if (outcome.kind === 'committed') this.commit(txn, outcome.commitTsUs);
    this.record(txn.txnId, { recordedAtMs: entryTimeMs, outcome }, known);
    return outcome;
  }

  private decide(txn: Txn, leaderStampTsUs: number): TxnOutcome {
    const skewUs = txn.nowMs * 1000 - leaderStampTsUs;
    if (Math.abs(skewUs) > this.rules.clockSkewMsMax * 1000)
      return { kind: 'clock-skew', skewMs: Math.trunc(skewUs / 1000) };
    const horizonTs = this.horizon.horizonAt(this.lastCommitTs);
    if (txn.startTsUs < horizonTs) return { kind: 'too-old', watermarkTs: horizonTs };
    const firstKey = txn.readKeys[0] ?? txn.writes[0]?.key ?? new Uint8Array(0);
    if (txn.startTsUs > this.lastCommitTs) return { kind: 'conflict', key: firstKey };
    const validatedReadKeys =
      this.store.faults.skipReadValidation === true ? withoutFirstReadOnlyKey(txn) : txn.readKeys;
    for (const key of validatedReadKeys) if (this.isNewerThan(key, txn.startTsUs)) return { kind: 'conflict', key };
    for (const write of txn.writes)
      if (this.isNewerThan(write.key, txn.startTsUs)) return { kind: 'conflict', key: write.key };
    return { kind: 'committed', commitTsUs: Math.max(this.lastCommitTs + 1, leaderStampTsUs) };
  }

  private isNewerThan(key: Uint8Array, startTsUs: number): boolean {
    const state = this.keyStatesByObject.get(key);
    assert(state !== undefined, 'every key of a txn is prefetched');
    return state.latestCommitTs !== undefined && state.latestCommitTs > startTsUs;
  }

  private commit(txn: Txn, commitTsUs: number): void {
    const sequence = ++this.commitSequence;
    txn.writes.forEach((write, at) => {
      this.versions.push({ key: write.key, commitTsUs, value: write.kind === 'put' ? write.value : undefined });
      const state = this.stateOf(write.key);
      if (state.committedIn !== sequence) {
        state.committedIn = sequence;
        this.versionsWritten++;
        state.hiddenTs = hiddenVersionTs(state);
        if (state.hiddenTs === unknownTs && write.kind === 'delete' && write.sameCommitAsWriteBefore !== undefined)
          state.hiddenTs = this.hiddenTsOfEarlierWrite(txn, at - write.sameCommitAsWriteBefore, sequence);
      }
      // A marker, or a version over an older one, leaves garbage collection something to remove.
      if (write.kind === 'delete' || (state.latestCommitTs ?? noVersionTs) !== noVersionTs) this.hidingWrites++;
      state.latestCommitTs = commitTsUs;
      const isLive = write.kind === 'put';
      if (state.isLive !== isLive) {
        state.isLive = isLive;
        this.liveKeyChanges.push({ key: write.key, isLive });
      }
      this.writes.push(write);
      if (write.kind === 'put' && write.isNewKey === true && this.store.impliedNewKeys !== undefined)
        this.absentKeys.push(...this.store.impliedNewKeys(write.key));
    });
    this.noteGarbage(txn, sequence, commitTsUs);
    this.lastCommitTs = commitTsUs;
    this.horizon = this.horizon.afterCommit(commitTsUs);
  }

  /**
   * For a vouched delete that shares its newest version's commit with an earlier write's key
   * (TxnWrite.sameCommitAsWriteBefore): the version that write hid, when it was a value this call
   * knows the timestamp of (that key was looked up); unknownTs otherwise.
   */
  private hiddenTsOfEarlierWrite(txn: Txn, at: number, sequence: number): number {
    const earlier = txn.writes[at];
    if (earlier === undefined) return unknownTs;
    const state = this.stateOf(earlier.key);
    return state.committedIn === sequence && state.hiddenTs >= 0 ? state.hiddenTs : unknownTs;
  }

  /**
   * What a committed txn gives garbage collection, by the last write of each key it wrote (the
   * version that stays): the key's older newest version, now hidden, and, for a delete, the marker.
   */
  private noteGarbage(txn: Txn, sequence: number, commitTsUs: number): void {
    const { garbage } = this;
    for (let i = txn.writes.length - 1; i >= 0; i--) {
      const write = txn.writes[i] as TxnWrite;
      const state = this.stateOf(write.key);
      if (state.notedIn === sequence) continue;
      state.notedIn = sequence;
      if (state.hiddenTs !== noPriorTs) {
        garbage.hiddenKeys.push(write.key);
        garbage.hiddenTimes.push(commitTsUs, state.hiddenTs);
      }
      if (write.kind === 'delete') {
        garbage.markerKeys.push(write.key);
        garbage.markerTimes.push(commitTsUs);
      }
    }
  }

  private record(txnId: string, record: TxnIdRecord, replaced: TxnIdRecord | undefined): void {
    if (replaced !== undefined) this.deleteExpiryRow(txnExpiryRowKey(replaced.recordedAtMs, txnId));
    this.txnIds.set(txnId, record);
    const rowKey = txnExpiryRowKey(record.recordedAtMs, txnId);
    this.systemWrites.push({ kind: 'put', key: txnRowKey(txnId), value: encodeTxnIdRecord(record) });
    this.systemWrites.push({ kind: 'put', key: rowKey, value: new Uint8Array(0) });
    this.insertedExpiryRows.set(keyId(rowKey), { recordedAtMs: record.recordedAtMs, txnId, rowKey });
    this.expiryFloorMs = Math.min(this.expiryFloorMs, record.recordedAtMs);
  }

  /** Deletes the oldest expired txn ids, at most txnIdExpiryRowsPerEntryMax of them. */
  private async expireTxnIds(entryTimeMs: number): Promise<void> {
    const cutoffMs = entryTimeMs - this.rules.txnIdRetentionMs;
    if (cutoffMs <= 0) return;
    const rowsMax = this.rules.txnIdExpiryRowsPerEntryMax;
    const candidates: ExpiryRow[] = [];
    for (const row of this.insertedExpiryRows.values()) if (row.recordedAtMs < cutoffMs) candidates.push(row);
    if (candidates.length === 0 && cutoffMs <= this.expiryFloorMs) return;
    const range = { gte: txnExpiryRows.gte, lt: systemKey(['txn-expiry', cutoffMs]) };
    const rowsWanted = rowsMax + this.deletedExpiryRows.size;
    const engineRows = await this.store.scanSystemRows(range, rowsWanted);
    for (const row of engineRows) {
      if (!this.deletedExpiryRows.has(keyId(row.key)))
        candidates.push({ ...decodeTxnExpiryRowKey(row.key), rowKey: row.key });
    }
    candidates.sort((a, b) => compareBytes(a.rowKey, b.rowKey));
    const isBelowCutoffCleared = engineRows.length < rowsWanted && candidates.length <= rowsMax;
    for (const row of candidates.slice(0, rowsMax)) {
      this.systemWrites.push({ kind: 'delete', key: txnRowKey(row.txnId) });
      this.txnIds.set(row.txnId, undefined);
      this.deleteExpiryRow(row.rowKey);
    }
    if (!isBelowCutoffCleared) return;
    // Every engine row below the cutoff was read and every candidate goes: none is left below it.
    // When none was found, also learn when the oldest row left expires, so that the entries until
    // then skip the scan (a cutoff moves with every entry; without this each one would scan).
    const floorMs = engineRows.length === 0 ? await this.oldestExpiryRowMsFrom(cutoffMs) : cutoffMs;
    this.expiryFloorMs = Math.max(this.expiryFloorMs, floorMs);
  }

  /**
   * The oldest recordedAtMs of the expiry rows at or after `cutoffMs`, in the engine (less what
   * this call deleted) and written by this call; +Infinity when there is none (the next recorded
   * row lowers the floor again), `cutoffMs` when it cannot tell.
   */
  private async oldestExpiryRowMsFrom(cutoffMs: number): Promise<number> {
    let oldestMs = Number.POSITIVE_INFINITY;
    for (const row of this.insertedExpiryRows.values()) oldestMs = Math.min(oldestMs, row.recordedAtMs);
    const rowsWanted = this.deletedExpiryRows.size + 1;
    const engineRows = await this.store.scanSystemRows(
      { gte: systemKey(['txn-expiry', cutoffMs]), lt: txnExpiryRows.lt },
      rowsWanted,
    );
    const kept = engineRows.find((row) => !this.deletedExpiryRows.has(keyId(row.key)));
    if (kept !== undefined) return Math.min(oldestMs, decodeTxnExpiryRowKey(kept.key).recordedAtMs);
    return engineRows.length < rowsWanted ? oldestMs : cutoffMs;
  }

  private deleteExpiryRow(rowKey: Uint8Array): void {
    this.systemWrites.push({ kind: 'delete', key: rowKey });
    const id = keyId(rowKey);
    if (!this.insertedExpiryRows.delete(id)) this.deletedExpiryRows.add(id);
  }
}
