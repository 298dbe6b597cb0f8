import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { LocalTxnExecutor } from '../../src/storage/local-txn-executor.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { TxnInvalidError } from '../../src/storage/txn-codec.js';
import type { Txn } from '../../src/storage/txn.js';

const key = (n: number) => encodeKey(['k', n]);

async function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const store = await MvccStore.open(new MemoryEngine());
  return { clock, store, executor: new LocalTxnExecutor({ store, clock }) };
}

function put(id: string, startTsUs: number, nowMs: number, n: number, readKeys: Uint8Array[] = []): Txn {
  return { txnId: id, startTsUs, nowMs, readKeys, writes: [{ kind: 'put', key: key(n), value: Uint8Array.of(n) }] };
}

describe('LocalTxnExecutor', () => {
  it('commits at the clock in microseconds and the next view reads the write', async () => {
    const { clock, executor } = await setup();
    const view = await executor.readView({ linearizable: true });
    const outcome = await executor.commit(put('a', view.ts, executor.nowMs(), 1));
    view.release();
    expect(outcome).toEqual({ kind: 'committed', commitTsUs: clock.nowMs() * 1000 });
    const after = await executor.readView({ linearizable: false });
    expect(await after.get(key(1))).toEqual(Uint8Array.of(1));
    after.release();
  });

  it('serializes concurrent commits: the second of two txns built on one view conflicts', async () => {
    const { executor } = await setup();
    const view = await executor.readView({ linearizable: true });
    const [first, second] = await Promise.all([
      executor.commit(put('a', view.ts, executor.nowMs(), 1, [key(1)])),
      executor.commit(put('b', view.ts, executor.nowMs(), 1, [key(1)])),
    ]);
    view.release();
    expect(first.kind).toBe('committed');
    expect(second).toEqual({ kind: 'conflict', key: key(1) });
  });

  it('gives commits in the same clock millisecond increasing timestamps', async () => {
    const { executor } = await setup();
    const outcomes = await Promise.all([1, 2, 3].map((n) => executor.commit(put(`t${n}`, 0, executor.nowMs(), n))));
    const stamps = outcomes.map((o) => (o.kind === 'committed' ? o.commitTsUs : -1));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    expect(new Set(stamps).size).toBe(3);
  });

  it('tells onApplied listeners every written key until they unsubscribe', async () => {
    const { clock, executor } = await setup();
    const heard: string[][] = [];
    const stop = executor.onApplied((writes) => heard.push(writes.map((w) => Buffer.from(w.key).toString('hex'))));
    await executor.commit(put('a', 0, executor.nowMs(), 1));
    clock.advanceMs(1);
    await executor.commit(put('b', 0, executor.nowMs(), 2, [key(1)])); // conflicts: nothing written
    stop();
    await executor.commit(put('c', 0, executor.nowMs(), 3));
    expect(heard).toEqual([[Buffer.from(key(1)).toString('hex')]]);
  });

  it('answers a retried txn id with the first outcome', async () => {
    const { clock, executor } = await setup();
    const txn = put('once', 0, executor.nowMs(), 1);
    const first = await executor.commit(txn);
    clock.advanceMs(10);
    expect(await executor.commit({ ...txn, nowMs: executor.nowMs() })).toEqual(first);
  });

  it('rejects a txn the entry codec would refuse before it is applied', async () => {
    const { executor, store } = await setup();
    expect(() => executor.commit({ txnId: '', startTsUs: 0, nowMs: 0, readKeys: [], writes: [] })).toThrow(
      TxnInvalidError,
    );
    expect(store.appliedIndex).toBe(0);
  });

  it('reports a listener failure after applying, so a retry finds the recorded outcome', async () => {
    const { executor } = await setup();
    executor.onApplied(() => {
      throw new Error('listener bug');
    });
    const txn = put('x', 0, executor.nowMs(), 1);
    await expect(executor.commit(txn)).rejects.toThrow(AggregateError);
    const view = await executor.readView({ linearizable: true });
    expect(await view.get(key(1))).toEqual(Uint8Array.of(1));
    view.release();
  });
});
