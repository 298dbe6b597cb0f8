/**
 * Transactions waiting to be proposed, cut into batches: one Raft entry carries many transactions
 * (raftLimits.proposalBatchTxnsMax, proposalBatchBytesMax), and one Ready carries many entries,
 * so one fsync covers every client that proposed while the previous one ran (group commit).
 */
import { raftLimits } from '../base/limits.js';
import type { Txn } from '../storage/txn.js';

/** Approximate encoded size of a transaction: what it adds to an entry. */
export function txnSizeBytes(txn: Txn): number {
  let bytes = 64 + txn.txnId.length;
  for (const key of txn.readKeys) bytes += key.byteLength + 2;
  for (const write of txn.writes)
    bytes += write.key.byteLength + (write.kind === 'put' ? write.value.byteLength : 0) + 8;
  return bytes;
}

export class ProposalBatcher {
  private pending: Txn[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly batchTxnsMax: number = raftLimits.proposalBatchTxnsMax.value,
    private readonly batchBytesMax: number = raftLimits.proposalBatchBytesMax.value,
  ) {}

  add(txn: Txn): void {
    this.pending.push(txn);
    this.pendingBytes += txnSizeBytes(txn);
  }

  get size(): number {
    return this.pending.length;
  }

  get bytes(): number {
    return this.pendingBytes;
  }

  /** Takes everything pending, cut into batches within the limits (a larger single txn goes alone). */
  drain(): Txn[][] {
    const batches: Txn[][] = [];
    let current: Txn[] = [];
    let currentBytes = 0;
    for (const txn of this.pending) {
      const size = txnSizeBytes(txn);
      if (current.length > 0 && (current.length >= this.batchTxnsMax || currentBytes + size > this.batchBytesMax)) {
        batches.push(current);
        current = [];
        currentBytes = 0;
      }
      current.push(txn);
      currentBytes += size;
    }
    if (current.length > 0) batches.push(current);
    this.pending = [];
    this.pendingBytes = 0;
    return batches;
  }
}
