import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssertionFailedError } from '../../src/base/assert.js';
import { encodeKey, prefixRange } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { ReadBelowWatermarkError } from '../../src/storage/mvcc-errors.js';
import { MvccStore, type VersionWrite } from '../../src/storage/mvcc-store.js';
import { mvccProperty } from './mvcc-store-property.js';

async function commit(
  store: MvccStore,
  commitTsUs: number,
  versions: Array<Omit<VersionWrite, 'commitTsUs'>>,
): Promise<void> {
  await store.applyExclusive(
    async () => ({
      batch: {
        versions: versions.map((v) => ({ ...v, commitTsUs })),
        systemWrites: [],
        appliedIndex: store.appliedIndex + 1,
        lastCommitTs: commitTsUs,
        horizon: store.horizonTracker.afterCommit(commitTsUs),
      },
      result: undefined,
    }),
    { sync: false },
  );
}

const k = (...t: Array<string | number>) => encodeKey(t);
const v = (n: number) => Uint8Array.of(n);

describe('MvccStore', () => {
  it('snapshot reads at any readable ts equal a simple model, through GC and open views', async () => {
    await fc.assert(
      mvccProperty(async () => new MemoryEngine()),
      { numRuns: 1000 },
    );
  });

  it('keeps the versions of a key together even when its encoding is a prefix of another key', async () => {
    const store = await MvccStore.open(new MemoryEngine());
    await commit(store, 10, [
      { key: k('a'), value: v(1) },
      { key: k('a', 1), value: v(2) },
    ]);
    await commit(store, 20, [{ key: k('a'), value: v(3) }]);
    expect(await store.scanAt(prefixRange(['a']), 20, { limit: 10 })).toEqual([
      { key: k('a'), value: v(3) },
      { key: k('a', 1), value: v(2) },
    ]);
    expect(await store.getAt(k('a'), 15)).toEqual(v(1));
  });

  it('recovers the applied index and lastCommitTs from the engine after a crash of unsynced batches', async () => {
    const engine = new MemoryEngine();
    const store = await MvccStore.open(engine);
    await commit(store, 10, [{ key: k('x'), value: v(1) }]);
    await store.flush();
    await commit(store, 20, [{ key: k('x'), value: v(2) }]);
    engine.crash();
    const reopened = await MvccStore.open(engine);
    expect(reopened.appliedIndex).toBe(1);
    expect(reopened.lastCommitTs).toBe(10);
    expect(await reopened.getAt(k('x'), 20)).toEqual(v(1));
  });

  it('removes hidden versions below the read watermark but keeps what an open view needs', async () => {
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 1 });
    await commit(store, 100, [{ key: k('x'), value: v(1) }]);
    const view = store.readView();
    await commit(store, 200, [{ key: k('x'), value: v(2) }]);
    await commit(store, 300, [{ key: k('x'), value: v(3) }]);
    const first = await store.collectGarbage();
    expect(first.watermarkTs).toBe(100);
    expect(first.deadVersions).toBe(0);
    expect(await view.get(k('x'))).toEqual(v(1));
    view.release();
    const second = await store.collectGarbage();
    expect(second.watermarkTs).toBe(300);
    expect(second.deadVersions).toBe(2);
    expect(second.liveVersions).toBe(1);
    expect(store.gcStats).toEqual({
      passesCompleted: 2,
      versionsRemoved: 2,
      deletionMarkersRemoved: 0,
      // Both passes read every row whole: three versions of x, then the same three again.
      bytesRead: 2 * 3 * (k('x').length + 9 + 1 + v(1).length),
      lastPass: { liveVersions: 1, deadVersions: 2 },
    });
    await expect(store.getAt(k('x'), 100)).rejects.toThrow(ReadBelowWatermarkError);
    expect(await store.getAt(k('x'), 300)).toEqual(v(3));
  });

  it('reads at most about bytesMax of rows a collection step, and the pass still removes what one unbounded step would', async () => {
    const big = (n: number) => new Uint8Array(1_000).fill(n);
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 1 });
    const keys = Array.from({ length: 100 }, (_, i) => k('m', i));
    await commit(
      store,
      100,
      keys.map((key) => ({ key, value: big(1) })),
    );
    await commit(
      store,
      200,
      keys.map((key) => ({ key, value: big(2) })),
    );
    const steps: number[] = [];
    for (
      let report = await store.collectGarbage({ bytesMax: 10_000 });
      ;
      report = await store.collectGarbage({ bytesMax: 10_000 })
    ) {
      steps.push(report.rowsExamined);
      if (report.isPassComplete) break;
    }
    // 200 rows of about 1 KiB: no step reads the 1,000 rows its row bound allows.
    expect(steps.length).toBeGreaterThan(2);
    expect(Math.max(...steps)).toBeLessThanOrEqual(32);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(200);
    expect(store.gcStats.versionsRemoved).toBe(100);
    for (const key of keys) expect(await store.getAt(key, 200)).toEqual(big(2));
  });

  it('keeps a deletion marker until the horizon passes it, then removes it', async () => {
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 1 });
    await commit(store, 100, [{ key: k('x'), value: v(1) }]);
    await commit(store, 200, [{ key: k('x'), value: undefined }]);
    let report = await store.collectGarbage();
    expect(report.deadVersions).toBe(1); // the hidden value only
    expect(await store.latestCommitTs(k('x'))).toBe(200);
    await commit(store, 1300, [{ key: k('y'), value: v(1) }]); // horizon: the newest commit at or below 1300 - 1000, i.e. 200
    report = await store.collectGarbage();
    expect(report.deletionMarkersRemoved).toBe(1);
    expect(await store.latestCommitTs(k('x'))).toBeUndefined();
  });

  it('removes a deletion marker only in the same step as the older versions it hides', async () => {
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 1 });
    await commit(store, 100, [{ key: k('x'), value: v(1) }]);
    await commit(store, 200, [{ key: k('x'), value: undefined }]);
    await commit(store, 5000, [{ key: k('y'), value: v(1) }]);
    // rows: x@200 (marker), x@100, y@5000. A one-row step ends right after the marker.
    const first = await store.collectGarbage({ rowsMax: 1 });
    expect(first.deadVersions).toBe(0);
    expect(await store.getAt(k('x'), 5000)).toBeUndefined();
    await store.collectGarbage({ rowsMax: 1 });
    expect(await store.getAt(k('x'), 5000)).toBeUndefined();
    expect(await store.latestCommitTs(k('x'))).toBe(200);
    expect((await store.collectGarbage({ rowsMax: 10 })).isPassComplete).toBe(true);
    // The next pass finds the marker alone and removes it.
    await store.collectGarbage({ rowsMax: 10 });
    expect(await store.latestCommitTs(k('x'))).toBeUndefined();
    expect(await store.getAt(k('y'), 5000)).toEqual(v(1));
  });

  it('remembers a run of deleted keys so the next scan from the same start reads only past it', async () => {
    const engine = new MemoryEngine();
    let rowsRead = 0;
    const iterator = engine.iterator.bind(engine);
    engine.iterator = (options) => {
      const inner = iterator(options);
      return {
        ...inner,
        next: async (n: number) => {
          const page = await inner.next(n);
          rowsRead += page.length;
          return page;
        },
        seek: (t) => inner.seek(t),
        close: () => inner.close(),
      };
    };
    const store = await MvccStore.open(engine, { deadPrefixKeysMin: 10 });
    const row = (n: number) => k('q', 'vis', n);
    await commit(
      store,
      10,
      Array.from({ length: 100 }, (_, n) => ({ key: row(n), value: v(1) })),
    );
    await commit(
      store,
      20,
      Array.from({ length: 90 }, (_, n) => ({ key: row(n), value: undefined })),
    );
    const range = prefixRange(['q', 'vis']);
    rowsRead = 0;
    expect((await store.scanAt(range, 20, { limit: 2 })).map((r) => r.key)).toEqual([row(90), row(91)]);
    expect(rowsRead).toBeGreaterThan(180);
    expect(store.deadPrefixCount).toBe(1);
    rowsRead = 0;
    expect((await store.scanAt(range, 20, { limit: 2 })).map((r) => r.key)).toEqual([row(90), row(91)]);
    expect(rowsRead).toBeLessThanOrEqual(10);
    // A put inside the remembered run is seen at once, and older reads never use the run.
    await commit(store, 30, [{ key: row(5), value: v(2) }]);
    expect((await store.scanAt(range, 30, { limit: 1 })).map((r) => r.key)).toEqual([row(5)]);
    expect((await store.scanAt(range, 15, { limit: 1 })).map((r) => r.key)).toEqual([row(0)]);
  });

  it('fails reads of a view held longer than the history once collection passes it', async () => {
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 1 });
    await commit(store, 100, [{ key: k('x'), value: v(1) }]);
    const view = store.readView();
    await commit(store, 200, [{ key: k('x'), value: v(2) }]);
    await commit(store, 5000, [{ key: k('x'), value: v(3) }]);
    await store.collectGarbage();
    await expect(view.get(k('x'))).rejects.toThrow(ReadBelowWatermarkError);
    view.release();
  });

  it('refuses a batch that breaks its invariants: index not growing, ts going back, bad keys', async () => {
    const store = await MvccStore.open(new MemoryEngine());
    await commit(store, 10, [{ key: k('x'), value: v(1) }]);
    const bad = async (batch: { versions: VersionWrite[]; appliedIndex: number; lastCommitTs: number }) =>
      store.applyExclusive(
        async () => ({ batch: { ...batch, systemWrites: [], horizon: store.horizonTracker }, result: undefined }),
        { sync: false },
      );
    await expect(bad({ versions: [], appliedIndex: 1, lastCommitTs: 10 })).rejects.toThrow(AssertionFailedError);
    await expect(bad({ versions: [], appliedIndex: 2, lastCommitTs: 9 })).rejects.toThrow(AssertionFailedError);
    await expect(
      bad({ versions: [{ key: k('x'), commitTsUs: 10, value: v(1) }], appliedIndex: 2, lastCommitTs: 11 }),
    ).rejects.toThrow(AssertionFailedError);
    await expect(
      bad({
        versions: [{ key: Uint8Array.of(0x02, 0x61), commitTsUs: 11, value: v(1) }],
        appliedIndex: 2,
        lastCommitTs: 11,
      }),
    ).rejects.toThrow(AssertionFailedError);
    await expect(
      bad({ versions: [{ key: Uint8Array.of(), commitTsUs: 11, value: v(1) }], appliedIndex: 2, lastCommitTs: 11 }),
    ).rejects.toThrow(AssertionFailedError);
    expect(store.appliedIndex).toBe(1);
    await commit(store, 11, [{ key: k('x'), value: v(2) }]);
    expect(store.appliedIndex).toBe(2);
  });

  it('the model check detects a store whose engine loses every other batch', async () => {
    // Feed the property something broken: an engine that silently drops every other write.
    const result = await fc.check(
      mvccProperty(async () => {
        const engine = new MemoryEngine();
        let writes = 0;
        const write = engine.write.bind(engine);
        engine.write = async (batch, options) => (writes++ % 2 === 1 ? undefined : write(batch, options));
        return engine;
      }),
      { numRuns: 1000, seed: 3 },
    );
    expect(result.failed).toBe(true);
  });
});
