import { describe, expect, it } from 'vitest';
import { ProposalBatcher } from '../../src/cluster/proposal-batcher.js';
import type { Txn } from '../../src/storage/txn.js';

function txn(id: number, valueBytes: number): Txn {
  return {
    txnId: `t${id}`,
    startTsUs: 0,
    nowMs: 0,
    readKeys: [],
    writes: [{ kind: 'put', key: Uint8Array.of(1, 2), value: new Uint8Array(valueBytes) }],
  };
}

describe('ProposalBatcher', () => {
  it('cuts batches at the transaction count and byte limits, keeping order', () => {
    const batcher = new ProposalBatcher(3, 10_000);
    for (let i = 0; i < 7; i++) batcher.add(txn(i, 10));
    expect(batcher.drain().map((b) => b.map((t) => t.txnId))).toEqual([['t0', 't1', 't2'], ['t3', 't4', 't5'], ['t6']]);
    expect(batcher.size).toBe(0);
  });

  it('sends a transaction larger than the byte limit alone', () => {
    const batcher = new ProposalBatcher(100, 1_000);
    batcher.add(txn(0, 10));
    batcher.add(txn(1, 5_000));
    batcher.add(txn(2, 10));
    expect(batcher.drain().map((b) => b.map((t) => t.txnId))).toEqual([['t0'], ['t1'], ['t2']]);
  });
});
