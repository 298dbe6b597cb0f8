import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { Txn, TxnWrite } from '../../src/storage/txn.js';

const keyOf = (n: number) => encodeKey(['k', n]);
const keyName = (key: Uint8Array) => Buffer.from(key).toString('hex');

/** A batch of write-only txns over a few keys; each txn reads at the store's current ts, so all commit unless an earlier txn of the entry wrote the same key. */
const entriesArb = fc.array(
  fc.array(
    fc.array(fc.record({ key: fc.integer({ min: 0, max: 5 }), isPut: fc.boolean() }), { minLength: 1, maxLength: 4 }),
    { minLength: 1, maxLength: 4 },
  ),
  { minLength: 1, maxLength: 8 },
);

describe('live key changes of the apply step', () => {
  it('sum, per key, to whether the key has a value in the final state (property)', async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, fc.integer({ min: 1, max: 3 }), async (entries, gcEvery) => {
        const store = await MvccStore.open(new MemoryEngine(), { historyMs: 0 });
        const counted = new Map<string, number>();
        let txnCount = 0;
        for (const [i, entry] of entries.entries()) {
          const txns: Txn[] = entry.map((writes) => ({
            txnId: `t${txnCount++}`,
            startTsUs: store.lastCommitTs,
            nowMs: 1_000 + i,
            readKeys: [],
            writes: writes.map((w): TxnWrite =>
              w.isPut
                ? { kind: 'put', key: keyOf(w.key), value: Uint8Array.of(w.key) }
                : { kind: 'delete', key: keyOf(w.key) },
            ),
          }));
          const result = await applyEntries(store, [
            { index: store.appliedIndex + 1, leaderStampTsUs: (1_000 + i) * 1000, txns },
          ]);
          for (const change of result.liveKeyChanges)
            counted.set(keyName(change.key), (counted.get(keyName(change.key)) ?? 0) + (change.isLive ? 1 : -1));
          if (i % gcEvery === 0) await store.collectGarbage({ rowsMax: 2 });
        }
        const view = store.readView();
        try {
          for (let n = 0; n <= 5; n++) {
            const isLive = (await view.get(keyOf(n))) !== undefined;
            expect(counted.get(keyName(keyOf(n))) ?? 0).toBe(isLive ? 1 : 0);
          }
        } finally {
          view.release();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reports nothing for a put over a value or a delete of an absent key', async () => {
    const store = await MvccStore.open(new MemoryEngine());
    const apply = async (id: string, writes: TxnWrite[]) =>
      applyEntries(store, [
        {
          index: store.appliedIndex + 1,
          leaderStampTsUs: 2_000_000 + store.appliedIndex,
          txns: [{ txnId: id, startTsUs: store.lastCommitTs, nowMs: 2_000, readKeys: [], writes }],
        },
      ]);
    expect((await apply('a', [{ kind: 'delete', key: keyOf(1) }])).liveKeyChanges).toEqual([]);
    expect((await apply('b', [{ kind: 'put', key: keyOf(1), value: Uint8Array.of(1) }])).liveKeyChanges).toEqual([
      { key: keyOf(1), isLive: true },
    ]);
    expect((await apply('c', [{ kind: 'put', key: keyOf(1), value: Uint8Array.of(2) }])).liveKeyChanges).toEqual([]);
    expect((await apply('d', [{ kind: 'delete', key: keyOf(1) }])).liveKeyChanges).toEqual([
      { key: keyOf(1), isLive: false },
    ]);
  });
});
