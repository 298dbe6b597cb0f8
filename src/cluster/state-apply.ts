/**
 * The state machine's side of a Raft entry: how a batch of transactions is encoded as an entry
 * payload, and how committed entries are applied to the MVCC store (validated and written by the
 * storage layer, deterministically, with the applied index in the same batch).
 */
import type { MvccStore } from '../storage/mvcc-store.js';
import type { Txn, TxnOutcome, TxnWrite } from '../storage/txn.js';
import { decodeTxnBatch, encodeTxnBatch, type TxnBatch } from '../storage/txn-codec.js';
import { applyEntries, type LiveKeyChange } from '../storage/txn-apply.js';

export interface EntryToApply {
  readonly index: number;
  /** The leader's cluster-clock stamp in microseconds; 0 for an entry without transactions. */
  readonly leaderStampTsUs: number;
  readonly txns: readonly Txn[];
}

export interface AppliedTxnResult {
  readonly txn: Txn;
  readonly outcome: TxnOutcome;
}

export interface AppliedEntry {
  readonly index: number;
  readonly results: readonly AppliedTxnResult[];
}

export interface AppliedRun {
  readonly entries: AppliedEntry[];
  /**
   * The writes this run applied, in apply order: those of txns committed here, not those of a
   * repeated txn id answered "committed" from the txn-id table (it writes nothing again).
   */
  readonly writes: readonly TxnWrite[];
  /** Keys that gained or lost their value (for counting live rows without scanning). */
  readonly liveKeyChanges: readonly LiveKeyChange[];
  readonly versionsWritten: number;
  /** The commit timestamp of the run's last transaction (the store's, when nothing committed). */
  readonly lastCommitTsUs: number;
}

/**
 * The decoded form of each payload this process encoded and has not applied yet, by the payload
 * itself: the leader applies its own entries without decoding them again (a consuming node spent
 * about 2 % of its main thread decoding its own proposals). The form is built as decodeTxnBatch
 * builds it — the fields the codec carries and no other, the same write shapes — so the apply
 * step sees what a follower decodes from the same bytes. Its byte arrays are the proposal's own,
 * which nothing writes into once proposed (byte-slab.ts; rows are encoded into arrays of their
 * own). A payload that arrives from elsewhere, or as a copy (read back from the log), is decoded.
 */
const decodedPayloads = new WeakMap<Uint8Array, TxnBatch>();

/** `areTxnsValidated`: as encodeTxnBatch's (the proposer's txns all passed TxnCommitter's validateTxn). */
export function encodeEntryPayload(
  leaderStampTsUs: number,
  txns: readonly Txn[],
  options: { readonly areTxnsValidated?: boolean } = {},
): Uint8Array {
  const data = encodeTxnBatch({ leaderStampTsUs, txns }, options);
  // An id with a lone surrogate decodes to another string (U+FFFD): such a batch is decoded.
  if (txns.every((txn) => isWellFormedText(txn.txnId)))
    decodedPayloads.set(data, { leaderStampTsUs, txns: txns.map(asDecoded) });
  return data;
}

export function decodeEntryPayload(data: Uint8Array): TxnBatch {
  return decodedPayloads.get(data) ?? decodeTxnBatch(data);
}

/** decodeEntryPayload for the apply step, which needs each entry once: the decoded form is let go. */
export function takeEntryPayload(data: Uint8Array): TxnBatch {
  const decoded = decodedPayloads.get(data);
  if (decoded === undefined) return decodeTxnBatch(data);
  decodedPayloads.delete(data);
  return decoded;
}

/** A txn as readTxn (txn-codec.ts) returns it from its encoding: only the encoded fields. */
function asDecoded(txn: Txn): Txn {
  return {
    txnId: txn.txnId,
    startTsUs: txn.startTsUs,
    nowMs: txn.nowMs,
    readKeys: [...txn.readKeys],
    writes: txn.writes.map(asDecodedWrite),
  };
}

function asDecodedWrite(write: TxnWrite): TxnWrite {
  if (write.kind === 'put')
    return write.isNewKey === true
      ? { kind: 'put', key: write.key, value: write.value, isNewKey: true }
      : { kind: 'put', key: write.key, value: write.value };
  // (validateTxn, which the encoding ran, allows sameCommitAsWriteBefore only with isLiveKey.)
  if (write.sameCommitAsWriteBefore !== undefined)
    return { kind: 'delete', key: write.key, isLiveKey: true, sameCommitAsWriteBefore: write.sameCommitAsWriteBefore };
  return write.isLiveKey === true
    ? { kind: 'delete', key: write.key, isLiveKey: true }
    : { kind: 'delete', key: write.key };
}

/**
 * Applies a run of consecutive committed entries (the first one follows the store's applied
 * index) in one engine batch. Not synced: the Raft log is the durable record, and the runtime
 * flushes the state before it compacts the log behind it.
 */
export async function applyEntriesToStore(store: MvccStore, entries: readonly EntryToApply[]): Promise<AppliedRun> {
  const result = await applyEntries(store, entries, { sync: false });
  const applied = entries.map((entry, i) => ({
    index: entry.index,
    results: entry.txns.map((txn, j) => ({ txn, outcome: (result.outcomes[i] as TxnOutcome[])[j] as TxnOutcome })),
  }));
  return {
    entries: applied,
    writes: result.writes,
    liveKeyChanges: result.liveKeyChanges,
    versionsWritten: result.versionsWritten,
    lastCommitTsUs: result.lastCommitTs,
  };
}

/** No lone surrogate: the text survives UTF-8 encoding and decoding unchanged. */
function isWellFormedText(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
