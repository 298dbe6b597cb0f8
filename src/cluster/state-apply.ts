/**
 * The state machine's side of a Raft entry: how a batch of transactions is encoded as an entry
 * payload, and how committed entries are applied to the MVCC store (validated and written by the
 * storage layer, deterministically, with the applied index in the same batch).
 */
import type { MvccStore } from '../storage/mvcc-store.js';
import type { Txn, TxnOutcome } from '../storage/txn.js';
import { decodeTxnBatch, encodeTxnBatch } from '../storage/txn-codec.js';

export interface EntryToApply {
  readonly index: number;
  /** The leader's cluster-clock stamp in microseconds; 0 for an entry without transactions. */
  readonly leaderStampTs: number;
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

export function encodeEntryPayload(leaderStampTs: number, txns: readonly Txn[]): Uint8Array {
  return encodeTxnBatch({ leaderStampTs, txns });
}

export function decodeEntryPayload(data: Uint8Array): { leaderStampTs: number; txns: readonly Txn[] } {
  return decodeTxnBatch(data);
}

export async function applyEntriesToStore(_store: MvccStore, _entries: readonly EntryToApply[]): Promise<AppliedEntry[]> {
  throw new Error('applyEntriesToStore: waiting for the storage layer apply step');
}
