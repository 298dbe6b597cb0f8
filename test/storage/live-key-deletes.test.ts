import { describe, expect, it } from 'vitest';
import { IteratorCountingEngine } from './iterator-counting-engine.js';
import { readRange } from '../../src/storage/engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import type { MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { Txn, TxnWrite } from '../../src/storage/txn.js';
import { versionsEnd, versionsStart } from '../../src/storage/version-key.js';
import { occRules, openOccStore } from './occ-schedule.js';

/** A message's data row (read by its delete) and its vis row (deleted with the live-key vouch). */
const data = (n: number) => encodeKey(['data', n]);
const vis = (n: number) => encodeKey(['vis', n]);
const liveDelete = (key: Uint8Array): TxnWrite => ({ kind: 'delete', key, isLiveKey: true });

/** nowMs matches the leader stamps used below (microseconds): no clock skew. */
function txn(id: string, startTsUs: number, fields: Partial<Txn>, nowMs = 1_000): Txn {
  return { txnId: id, startTsUs, nowMs, readKeys: [], writes: [], ...fields };
}

async function applyOne(store: MvccStore, leaderStampTsUs: number, txns: Txn[]) {
  return applyEntries(store, [{ index: store.appliedIndex + 1, leaderStampTsUs, txns }], { rules: occRules });
}

/** Sends messages 1..count (data and vis rows) in one txn at 1 s, then reopens the store, its newest-version cache empty. */
async function storeWithMessages(count: number): Promise<{ store: MvccStore; engine: IteratorCountingEngine }> {
  const engine = new IteratorCountingEngine();
  const first = await openOccStore(engine);
  const writes: TxnWrite[] = [];
  for (let n = 1; n <= count; n++)
    writes.push(
      { kind: 'put', key: data(n), value: Uint8Array.of(n) },
      { kind: 'put', key: vis(n), value: Uint8Array.of(0) },
    );
  await applyOne(first, 1_000_000, [txn('send', 0, { writes })]);
  return { store: await openOccStore(engine), engine };
}

/** The delete of message n as the queue layer plans it: reads its data row, deletes both rows. */
const deleteOf = (id: string, n: number, startTsUs: number, nowMs = 2_000): Txn =>
  txn(id, startTsUs, { readKeys: [data(n)], writes: [{ kind: 'delete', key: data(n) }, liveDelete(vis(n))] }, nowMs);

describe('deletes of keys vouched live (TxnWrite.isLiveKey)', () => {
  it('are applied without reading the vouched keys, and count as removed live rows', async () => {
    const { store, engine } = await storeWithMessages(3);
    const before = engine.userPositionings;
    const result = await applyOne(store, 2_000_000, [deleteOf('delete-1', 1, 1_000_000)]);
    expect(result.outcomes[0]).toEqual([{ kind: 'committed', commitTsUs: 2_000_000 }]);
    // The data row the delete read is looked up (an iterator and its seek); the vis row is not.
    expect(engine.userPositionings - before).toBe(2);
    expect(result.liveKeyChanges.map((change) => [[...change.key], change.isLive])).toEqual([
      [[...data(1)], false],
      [[...vis(1)], false],
    ]);
    const view = store.readView();
    expect(await view.get(vis(1))).toBeUndefined();
    expect(await view.get(vis(2))).toEqual(Uint8Array.of(0));
    view.release();
  });

  it('the same delete without the vouch looks the vis row up too (what the vouch saves)', async () => {
    const { store, engine } = await storeWithMessages(3);
    const before = engine.userPositionings;
    await applyOne(store, 2_000_000, [
      txn(
        'delete-1',
        1_000_000,
        {
          readKeys: [data(1)],
          writes: [
            { kind: 'delete', key: data(1) },
            { kind: 'delete', key: vis(1) },
          ],
        },
        2_000,
      ),
    ]);
    expect(engine.userPositionings - before).toBe(3);
  });

  it('a rival delete of the same message conflicts on the read key, in the same call or a later one', async () => {
    const { store } = await storeWithMessages(2);
    const sameCall = await applyOne(store, 2_000_000, [deleteOf('a', 1, 1_000_000), deleteOf('b', 1, 1_000_000)]);
    expect(sameCall.outcomes[0]).toEqual([
      { kind: 'committed', commitTsUs: 2_000_000 },
      { kind: 'conflict', key: data(1) },
    ]);
    const laterCall = await applyOne(store, 3_000_000, [deleteOf('c', 1, 1_000_000, 3_000)]);
    expect(laterCall.outcomes[0]).toEqual([{ kind: 'conflict', key: data(1) }]);
    expect(laterCall.liveKeyChanges).toEqual([]);
  });

  it('a vouched key that another txn of the call reads is still validated: the reader conflicts', async () => {
    const { store } = await storeWithMessages(2);
    const outcomes = (
      await applyOne(store, 2_000_000, [
        deleteOf('delete-1', 1, 1_000_000),
        txn(
          'reader',
          1_000_000,
          { readKeys: [vis(1)], writes: [{ kind: 'put', key: data(2), value: Uint8Array.of(7) }] },
          2_000,
        ),
      ])
    ).outcomes[0];
    expect(outcomes).toEqual([
      { kind: 'committed', commitTsUs: 2_000_000 },
      { kind: 'conflict', key: vis(1) },
    ]);
  });

  it('a key vouched both new and live in one call is read like any other, not trusted either way', async () => {
    const { store, engine } = await storeWithMessages(1);
    const before = engine.userPositionings;
    const result = await applyOne(store, 2_000_000, [
      txn(
        'put-new',
        1_000_000,
        { writes: [{ kind: 'put', key: vis(1), value: Uint8Array.of(1), isNewKey: true }] },
        2_000,
      ),
      txn('delete-live', 1_000_000, { writes: [liveDelete(vis(1))] }, 2_000),
    ]);
    expect(engine.userPositionings - before).toBe(2);
    // vis(1) holds a value from the send, so the "new" put is not counted as a new live row.
    expect(result.outcomes[0]).toEqual([
      { kind: 'committed', commitTsUs: 2_000_000 },
      { kind: 'conflict', key: vis(1) },
    ]);
    expect(result.liveKeyChanges).toEqual([]);
  });
});

describe('deletes vouched to share the commit of an earlier write (TxnWrite.sameCommitAsWriteBefore)', () => {
  /** A cache of one key: the vis rows the deletes remove are not in it, as with a large backlog. */
  const oneKeyCache = { newestVersionCache: { entriesMax: 1, bytesMax: 200, valueBytesMax: 8 } };

  /** Sends three messages at 1 s, deletes message 1 at 2 s, then collects what the ledger holds. */
  async function deleteThenCollect(vis1Delete: TxnWrite) {
    const engine = new IteratorCountingEngine();
    const store = await openOccStore(engine, oneKeyCache);
    const sends: TxnWrite[] = [];
    for (let n = 1; n <= 3; n++)
      sends.push(
        { kind: 'put', key: data(n), value: Uint8Array.of(n), isNewKey: true },
        { kind: 'put', key: vis(n), value: Uint8Array.of(0), isNewKey: true },
      );
    await applyOne(store, 1_000_000, [txn('send', 0, { writes: sends })]);
    await applyOne(store, 1_000_100, [txn('fill-cache', 1_000_000, { readKeys: [data(3)] })]);
    const deleted = await applyOne(store, 2_000_000, [
      txn(
        'delete-1',
        1_000_100,
        { readKeys: [data(1)], writes: [{ kind: 'delete', key: data(1) }, vis1Delete] },
        2_000,
      ),
    ]);
    expect(deleted.outcomes[0]).toEqual([{ kind: 'committed', commitTsUs: 2_000_000 }]);
    // An empty txn moves the watermark past the delete.
    await applyOne(store, 3_000_000, [txn('tick', 2_000_000, {}, 3_000)]);
    expect(store.garbageLedger.isComplete).toBe(true);
    const before = engine.userPositionings;
    const report = await store.collectGarbage();
    const seeks = engine.userPositionings - before;
    const vis1Versions = await readRange(engine, { gte: versionsStart(vis(1)), lt: versionsEnd(vis(1)) }, 10);
    return { report, seeks, vis1Versions };
  }

  it('collection removes the version the delete hid without a seek: the send wrote it with the data row', async () => {
    const { report, seeks, vis1Versions } = await deleteThenCollect({
      kind: 'delete',
      key: vis(1),
      isLiveKey: true,
      sameCommitAsWriteBefore: 1,
    });
    expect(report.kind).toBe('ledger');
    // The versions of data(1) and vis(1) the send wrote, and both deletion markers (the horizon is past them).
    expect(report.deadVersions).toBe(4);
    expect(report.deletionMarkersRemoved).toBe(2);
    expect(seeks).toBe(0);
    // Nothing of vis(1) is left: its marker went after the value it hid, not before it.
    expect(vis1Versions).toEqual([]);
  });

  it("without the vouch, collection seeks the version among the key's versions (what the vouch saves)", async () => {
    const { report, seeks, vis1Versions } = await deleteThenCollect(liveDelete(vis(1)));
    expect(report.kind).toBe('ledger');
    expect(report.deadVersions).toBe(4);
    // An iterator opened, and its seek.
    expect(seeks).toBe(2);
    expect(vis1Versions).toEqual([]);
  });
});
