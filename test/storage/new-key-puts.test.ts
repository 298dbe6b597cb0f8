import { describe, expect, it } from 'vitest';
import { IteratorCountingEngine } from './iterator-counting-engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import type { MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { Txn, TxnWrite } from '../../src/storage/txn.js';
import { occRules, openOccStore } from './occ-schedule.js';

const key = (n: number) => encodeKey(['msg', n]);
const newKeyPut = (n: number): TxnWrite => ({ kind: 'put', key: key(n), value: Uint8Array.of(n), isNewKey: true });

/** nowMs matches the leader stamps used below (microseconds): no clock skew. */
function txn(id: string, startTsUs: number, fields: Partial<Txn>, nowMs = 1_000): Txn {
  return { txnId: id, startTsUs, nowMs, readKeys: [], writes: [], ...fields };
}

async function applyOne(store: MvccStore, leaderStampTsUs: number, txns: Txn[]) {
  return applyEntries(store, [{ index: store.appliedIndex + 1, leaderStampTsUs, txns }], { rules: occRules });
}

describe('puts of keys vouched new (TxnWrite.isNewKey)', () => {
  it('are applied without reading the keys, and count as new live rows', async () => {
    const engine = new IteratorCountingEngine();
    const store = await openOccStore(engine);
    const before = engine.userIterators;
    const result = await applyOne(store, 1_000_000, [
      txn('send', 0, { writes: [newKeyPut(1), newKeyPut(2), newKeyPut(3)] }),
    ]);
    expect(result.outcomes[0]).toEqual([{ kind: 'committed', commitTsUs: 1_000_000 }]);
    expect(engine.userIterators - before).toBe(0);
    expect(result.liveKeyChanges.map((change) => change.isLive)).toEqual([true, true, true]);
    const view = store.readView();
    expect(await view.get(key(2))).toEqual(Uint8Array.of(2));
    view.release();
  });

  it('the same puts without the vouch read every key (what the vouch saves)', async () => {
    const engine = new IteratorCountingEngine();
    const store = await openOccStore(engine);
    const before = engine.userIterators;
    const writes: TxnWrite[] = [1, 2, 3].map((n) => ({ kind: 'put', key: key(n), value: Uint8Array.of(n) }));
    await applyOne(store, 1_000_000, [txn('send', 0, { writes })]);
    expect(engine.userIterators - before).toBeGreaterThan(0);
  });

  it('a key vouched new that another txn of the call reads is still validated: the reader conflicts', async () => {
    const store = await openOccStore();
    await applyOne(store, 1_000_000, [
      txn('first', 0, { writes: [{ kind: 'put', key: key(9), value: Uint8Array.of(9) }] }),
    ]);
    const outcomes = (
      await applyOne(store, 2_000_000, [
        txn('create', 1_000_000, { writes: [newKeyPut(5)] }, 2_000),
        txn(
          'reader',
          1_000_000,
          { readKeys: [key(5)], writes: [{ kind: 'put', key: key(6), value: Uint8Array.of(6) }] },
          2_000,
        ),
      ])
    ).outcomes[0];
    expect(outcomes).toEqual([
      { kind: 'committed', commitTsUs: 2_000_000 },
      { kind: 'conflict', key: key(5) },
    ]);
  });

  it('a txn id seen before still answers with its first outcome and writes nothing again', async () => {
    const store = await openOccStore();
    const send = txn('send', 0, { writes: [newKeyPut(1)] });
    const first = await applyOne(store, 1_000_000, [send]);
    const repeat = await applyOne(store, 1_000_100, [send]);
    expect(repeat.outcomes[0]).toEqual(first.outcomes[0]);
    expect(repeat.liveKeyChanges).toEqual([]);
    expect(repeat.versionsWritten).toBe(0);
  });
});
