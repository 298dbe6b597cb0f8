/**
 * The state machine's side of a Raft entry: how a batch of transactions is encoded as an entry
 * payload, and how committed entries are applied to the MVCC store (validated and written by the
 * storage layer, deterministically, with the applied index in the same batch).
 */
import type { MvccStore } from '../storage/mvcc-store.js';
import type { Txn, TxnOutcome, TxnWrite } from '../storage/txn.js';
import { decodeTxnBatch, encodeTxnBatch } from '../storage/txn-codec.js';
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

export function encodeEntryPayload(leaderStampTsUs: number, txns: readonly Txn[]): Uint8Array {
  return encodeTxnBatch({ leaderStampTsUs, txns });
}

export function decodeEntryPayload(data: Uint8Array): { leaderStampTsUs: number; txns: readonly Txn[] } {
  return decodeTxnBatch(data);
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
