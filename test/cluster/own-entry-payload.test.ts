/**
 * The leader applies its own proposals without decoding them (state-apply.ts): what it applies
 * must be exactly what a follower decodes from the same bytes, or the replicas diverge.
 */
import { describe, expect, it } from 'vitest';
import { decodeEntryPayload, encodeEntryPayload, takeEntryPayload } from '../../src/cluster/state-apply.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { decodeTxnBatch } from '../../src/storage/txn-codec.js';
import type { Txn, TxnWrite } from '../../src/storage/txn.js';

const key = (name: string): Uint8Array => encodeKey(['q', name]);

/** Writes of every kind the codec has, some carrying fields the codec does not (ignored for their kind). */
const writes: TxnWrite[] = [
  { kind: 'put', key: key('a'), value: Uint8Array.of(1, 2, 3) },
  { kind: 'put', key: key('b'), value: Uint8Array.of(4), isNewKey: true },
  { kind: 'delete', key: key('c') },
  { kind: 'delete', key: key('d'), isLiveKey: true },
  { kind: 'delete', key: key('e'), isLiveKey: true, sameCommitAsWriteBefore: 1 },
  { kind: 'put', key: key('f'), value: new Uint8Array(0), ...{ isLiveKey: true, sameCommitAsWriteBefore: 2 } },
];

function txnOf(txnId: string): Txn {
  return { txnId, startTsUs: 12_345, nowMs: 678, readKeys: [key('a'), key('r')], writes };
}

describe("a leader's own entry payload", () => {
  it('is applied as the form a follower decodes from the bytes, field for field', () => {
    const extra = { ...txnOf('t-1'), forwardedBy: 'node-2' } as Txn;
    const data = encodeEntryPayload(1_000_001, [extra, txnOf('t-2')]);
    const followers = decodeTxnBatch(data);
    const own = takeEntryPayload(data);
    // The arrays are the proposal's own (not views into the payload), and the shapes are the decoder's.
    expect(own.txns[0]?.writes[0]?.key).toBe(writes[0]?.key);
    expect(own).toEqual(followers);
    for (const [i, txn] of own.txns.entries()) {
      expect(Object.keys(txn)).toEqual(Object.keys(followers.txns[i] as Txn));
      txn.writes.forEach((write, j) =>
        expect(Object.keys(write)).toEqual(Object.keys(followers.txns[i]?.writes[j] as TxnWrite)),
      );
    }
  });

  it('is let go once applied: a second apply of the same bytes decodes them', () => {
    const data = encodeEntryPayload(2_000_000, [txnOf('t-3')]);
    expect(decodeEntryPayload(data).txns[0]?.writes[0]?.key).toBe(writes[0]?.key);
    expect(takeEntryPayload(data).txns[0]?.writes[0]?.key).toBe(writes[0]?.key);
    const again = takeEntryPayload(data);
    expect(again.txns[0]?.writes[0]?.key).not.toBe(writes[0]?.key);
    expect(again).toEqual(decodeTxnBatch(data));
  });

  it('is decoded when a txn id would not survive UTF-8 unchanged', () => {
    const data = encodeEntryPayload(3_000_000, [txnOf('lone-\ud800')]);
    const applied = takeEntryPayload(data);
    expect(applied.txns[0]?.txnId).toBe('lone-\ufffd');
    expect(applied).toEqual(decodeTxnBatch(data));
  });

  it('of a copy of the bytes (read back from the log) is decoded', () => {
    const data = encodeEntryPayload(4_000_000, [txnOf('t-4')]);
    const copy = takeEntryPayload(Uint8Array.from(data));
    expect(copy.txns[0]?.writes[0]?.key).not.toBe(writes[0]?.key);
    expect(copy).toEqual(takeEntryPayload(data));
  });
});
