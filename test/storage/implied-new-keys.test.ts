/**
 * MvccStoreOptions.impliedNewKeys: a put vouched new (TxnWrite.isNewKey) tells the store that
 * other keys the layer above derives from it never had a version either (a message's state row,
 * from its data row's minted id). The store remembers them as absent: their first read and their
 * validation skip the engine, and a later write of one is read back as written.
 */
import { describe, expect, it } from 'vitest';
import { IteratorCountingEngine } from './iterator-counting-engine.js';
import { bytesEqual, encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { Txn } from '../../src/storage/txn.js';
import { impliedNewQueueKeys } from '../../src/queue/implied-new-keys.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { occHistoryMs, occRules } from './occ-schedule.js';

const data = encodeKey(['data', 'm1']);
const state = encodeKey(['state', 'm1']);
const stateOf = (key: Uint8Array) => (bytesEqual(key, data) ? [state] : []);

function txn(id: string, startTsUs: number, fields: Partial<Txn>, nowMs = 1_000): Txn {
  return { txnId: id, startTsUs, nowMs, readKeys: [], writes: [], ...fields };
}

const send = txn('send', 0, { writes: [{ kind: 'put', key: data, value: Uint8Array.of(1), isNewKey: true }] });

/** A receive of the sent message: reads its data and state rows, writes the state row. */
function receiveOf(id: string, startTsUs: number, stateValue: number): Txn {
  return txn(id, startTsUs, {
    readKeys: [data, state],
    writes: [{ kind: 'put', key: state, value: Uint8Array.of(stateValue) }],
  });
}

async function openStore(engine: MemoryEngine, isHinted: boolean): Promise<MvccStore> {
  return MvccStore.open(engine, { historyMs: occHistoryMs, ...(isHinted ? { impliedNewKeys: stateOf } : {}) });
}

async function applyInOrder(store: MvccStore, ...batches: Array<{ leaderStampTsUs: number; txns: Txn[] }>) {
  return applyEntries(
    store,
    batches.map((batch, i) => ({ index: store.appliedIndex + 1 + i, ...batch })),
    { rules: occRules },
  );
}

describe('keys implied new by a put vouched new', () => {
  it('are read and validated without the engine, and a later write of one is read back', async () => {
    const engine = new IteratorCountingEngine();
    const store = await openStore(engine, true);
    await applyInOrder(store, { leaderStampTsUs: 1_000_000, txns: [send] });
    const before = engine.userIterators;
    const view = store.readView();
    expect(await view.get(state)).toBeUndefined();
    const startTsUs = view.ts;
    view.release();
    // A first receive: reads both rows, writes the state row.
    const claim = receiveOf('claim', startTsUs, 7);
    const result = await applyInOrder(store, { leaderStampTsUs: 1_000_001, txns: [claim] });
    expect(result.outcomes[0]?.[0]?.kind).toBe('committed');
    expect(engine.userIterators - before).toBe(0);
    const after = store.readView();
    expect(await after.get(state)).toEqual(Uint8Array.of(7));
    after.release();
    // A rival claim from the same view conflicts on the state row, as without the hint.
    const rival = receiveOf('rival', startTsUs, 8);
    const rivalResult = await applyInOrder(store, { leaderStampTsUs: 1_000_002, txns: [rival] });
    expect(rivalResult.outcomes[0]?.[0]?.kind).toBe('conflict');
  });

  it('without the hint, the first read of the implied key goes to the engine (what the hint saves)', async () => {
    const engine = new IteratorCountingEngine();
    const store = await openStore(engine, false);
    await applyInOrder(store, { leaderStampTsUs: 1_000_000, txns: [send] });
    const before = engine.userIterators;
    const view = store.readView();
    expect(await view.get(state)).toBeUndefined();
    view.release();
    expect(engine.userIterators - before).toBe(1);
  });

  it('a key implied new and written later in the same apply call is read back as written', async () => {
    const store = await openStore(new IteratorCountingEngine(), true);
    const claim = receiveOf('claim', 1_000_000, 7);
    const result = await applyInOrder(
      store,
      { leaderStampTsUs: 1_000_000, txns: [send] },
      { leaderStampTsUs: 1_000_001, txns: [claim] },
    );
    expect(result.outcomes.map((outcomes) => outcomes[0]?.kind)).toEqual(['committed', 'committed']);
    const view = store.readView();
    expect(await view.get(state)).toEqual(Uint8Array.of(7));
    view.release();
  });

  describe('a backlog larger than the newest-version cache', () => {
    const dataOf = (n: number) => encodeKey(['data', `m${n}`]);
    const stateOfMessage = (n: number) => encodeKey(['state', `m${n}`]);
    /** Data key of message n implies its state key (the queue layer's rule, on these test keys). */
    const implied = (key: Uint8Array) => {
      for (let n = 0; n < 100; n++) if (bytesEqual(key, dataOf(n))) return [stateOfMessage(n)];
      return [];
    };
    /** A store whose cache holds two keys, with `count` messages sent (each in its own txn). */
    async function storeWithBacklog(count: number, absentKeysMax?: number) {
      const engine = new IteratorCountingEngine();
      const store = await MvccStore.open(engine, {
        historyMs: occHistoryMs,
        impliedNewKeys: implied,
        newestVersionCache: { entriesMax: 2, bytesMax: 1_048_576, valueBytesMax: 1_024 },
        ...(absentKeysMax === undefined ? {} : { absentKeysMax }),
      });
      const sends = Array.from({ length: count }, (_, n) =>
        txn(`send-${n}`, 0, { writes: [{ kind: 'put', key: dataOf(n), value: Uint8Array.of(n), isNewKey: true }] }),
      );
      await applyInOrder(store, { leaderStampTsUs: 1_000_000, txns: sends });
      return { engine, store };
    }
    /** The first receive of message n: writes its state row (as the queue layer's does: no read of it). */
    const firstReceive = (n: number, startTsUs: number, id = `receive-${n}`) =>
      txn(id, startTsUs, {
        readKeys: [dataOf(n)],
        writes: [{ kind: 'put', key: stateOfMessage(n), value: Uint8Array.of(1) }],
      });

    it('keeps every state row known absent: a first receive past the cached head seeks only its data row', async () => {
      const { engine, store } = await storeWithBacklog(20);
      expect(store.absentKeyCount).toBe(20);
      const startTsUs = store.lastCommitTs;
      const before = engine.userPositionings;
      const result = await applyInOrder(store, { leaderStampTsUs: 1_000_200, txns: [firstReceive(19, startTsUs)] });
      expect(result.outcomes[0]?.[0]?.kind).toBe('committed');
      // The data row (not in the two-key cache) is looked up: an iterator and its seek; the state row is not.
      expect(engine.userPositionings - before).toBe(2);
      // Written now, so no longer absent: it reads back as written, and a rival first receive conflicts on it.
      expect(store.absentKeyCount).toBe(19);
      const view = store.readView();
      expect(await view.get(stateOfMessage(19))).toEqual(Uint8Array.of(1));
      view.release();
      const rival = await applyInOrder(store, {
        leaderStampTsUs: 1_000_300,
        txns: [firstReceive(19, startTsUs, 'rival')],
      });
      expect(rival.outcomes[0]?.[0]).toEqual({ kind: 'conflict', key: stateOfMessage(19) });
    });

    it('beyond absentKeysMax a send goes without the hint, and its first receive seeks the state row too', async () => {
      const { engine, store } = await storeWithBacklog(3, 2);
      expect(store.absentKeyCount).toBe(2);
      const before = engine.userPositionings;
      const result = await applyInOrder(store, {
        leaderStampTsUs: 1_000_200,
        txns: [firstReceive(2, store.lastCommitTs)],
      });
      expect(result.outcomes[0]?.[0]?.kind).toBe('committed');
      // One iterator seeks both keys: opened (1) and positioned per key (2).
      expect(engine.userPositionings - before).toBe(3);
      const view = store.readView();
      expect(await view.get(stateOfMessage(2))).toEqual(Uint8Array.of(1));
      view.release();
    });

    it('a point read of a known-absent state row answers from the set, and a reopened store reads the engine', async () => {
      const { engine, store } = await storeWithBacklog(5);
      const before = engine.userPositionings;
      const view = store.readView();
      expect(await view.get(stateOfMessage(4))).toBeUndefined();
      view.release();
      expect(engine.userPositionings - before).toBe(0);
      const reopened = await MvccStore.open(engine, { historyMs: occHistoryMs, impliedNewKeys: implied });
      expect(reopened.absentKeyCount).toBe(0);
      const again = reopened.readView();
      expect(await again.get(stateOfMessage(4))).toBeUndefined();
      again.release();
      expect(engine.userPositionings - before).toBeGreaterThan(0);
    });
  });

  it("the queue layer's rule: a data row implies its message's state row, nothing else does", () => {
    for (const [name, generation, partition, id] of [
      ['orders', 3, 1, 'id-1'],
      ['a', 0, 0, 'x'],
      ['Queue_name-80chars'.padEnd(80, 'z'), 2 ** 40, 255, 'f6b1c0de-1111-4222-8333-944455556666'],
      ['orders.fifo', 70_000, 12, 'id\u0001with\u0000bytes'],
    ] as const) {
      const generationKeys = new GenerationKeys(name, generation);
      expect(impliedNewQueueKeys(generationKeys.data(partition, id))).toEqual([
        generationKeys.receiveState(partition, id),
      ]);
    }
    const keys = new GenerationKeys('orders', 3);
    expect(impliedNewQueueKeys(keys.visibility(1, 5_000, 7n, 'id-1'))).toEqual([]);
    expect(impliedNewQueueKeys(keys.receiveState(1, 'id-1'))).toEqual([]);
    expect(impliedNewQueueKeys(encodeKey(['queues', 'orders']))).toEqual([]);
  });
});
