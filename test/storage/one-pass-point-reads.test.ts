import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MvccStore, type VersionWrite } from '../../src/storage/mvcc-store.js';
import { IteratorCountingEngine } from './iterator-counting-engine.js';
import { applyVersions } from './apply-versions.js';

const k = (name: string): Uint8Array => encodeKey(['t', name]);
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const roomy = { entriesMax: 1_000, bytesMax: 1_000_000, valueBytesMax: 1_000 };

/** Writes `batches` through one store, and opens another over the same engine: its caches know nothing yet. */
async function coldStore(batches: VersionWrite[][]): Promise<{ store: MvccStore; engine: IteratorCountingEngine }> {
  const engine = new IteratorCountingEngine();
  const writer = await MvccStore.open(engine);
  for (const versions of batches) await applyVersions(writer, versions);
  const store = await MvccStore.open(engine, { newestVersionCache: roomy });
  engine.userIterators = 0;
  engine.userPositionings = 0;
  return { store, engine };
}

const names = Array.from({ length: 10 }, (_, i) => `m${i}`);

describe('MvccStore.getManyAt', () => {
  it('reads neighbouring keys at a past timestamp through one iterator, versions above it and markers included', async () => {
    const { store, engine } = await coldStore([
      names.map((name, i) => ({ key: k(name), commitTsUs: 10, value: bytes(i) })),
      [{ key: k('m5'), commitTsUs: 20, value: undefined }],
      [{ key: k('m7'), commitTsUs: 30, value: bytes(77) }],
    ]);
    const keys = names.map(k);
    const expected = names.map((_, i) => (i === 5 ? undefined : bytes(i)));
    expect(await store.getManyAt(keys, 25)).toEqual(expected);
    expect(engine.userIterators).toBe(1);
    // Below the last commit, with writes above the read: nothing could teach the cache.
    expect(store.engineReadStats).toEqual({ keys: 10, keysUntaught: 10, iterators: 1 });
    // The same keys one by one: an iterator each.
    engine.userIterators = 0;
    expect(await Promise.all(keys.map((key) => store.getAt(key, 25)))).toEqual(expected);
    expect(engine.userIterators).toBe(10);
    expect(store.engineReadStats).toEqual({ keys: 20, keysUntaught: 20, iterators: 11 });
  });

  it('teaches the cache what it read at the last commit, so the next reads stay in memory', async () => {
    const { store, engine } = await coldStore([
      names.map((name, i) => ({ key: k(name), commitTsUs: 10, value: bytes(i) })),
      [{ key: k('m3'), commitTsUs: 20, value: undefined }],
    ]);
    const keys = [...names, 'm3a', 'zz'].map(k);
    const expected = [...names.map((_, i) => (i === 3 ? undefined : bytes(i))), undefined, undefined];
    expect(await store.getManyAt(keys, 20)).toEqual(expected);
    expect(engine.userIterators).toBe(1);
    expect(store.engineReadStats).toEqual({ keys: 12, keysUntaught: 0, iterators: 1 });
    expect(await store.getManyAt(keys, 20)).toEqual(expected);
    expect(store.engineReadStats).toEqual({ keys: 12, keysUntaught: 0, iterators: 1 });
    expect(await store.latestVersionsOfKeys([k('m3'), k('m4'), k('zz')])).toEqual([
      { commitTsUs: 20, isValue: false },
      { commitTsUs: 10, isValue: true },
      undefined,
    ]);
    expect(engine.userIterators).toBe(1);
  });

  it('answers in the order asked, a repeated key in each of its places', async () => {
    const { store } = await coldStore([names.map((name, i) => ({ key: k(name), commitTsUs: 10, value: bytes(i) }))]);
    const asked = ['m9', 'm2', 'm9', 'none', 'm0', 'm2'];
    expect(await store.getManyAt(asked.map(k), 10)).toEqual([
      bytes(9),
      bytes(2),
      bytes(9),
      undefined,
      bytes(0),
      bytes(2),
    ]);
  });

  it('leaves keys past its budget of entries to reads of their own', async () => {
    // 'a' and 'z' with 200 keys between them: the pass gives up long before 'z'.
    const between = Array.from({ length: 200 }, (_, i) => `b${String(i).padStart(3, '0')}`);
    const { store, engine } = await coldStore([
      [
        { key: k('a'), commitTsUs: 10, value: bytes(1) },
        { key: k('a0'), commitTsUs: 10, value: bytes(2) },
        ...between.map((name) => ({ key: k(name), commitTsUs: 10, value: bytes(3) })),
        { key: k('z'), commitTsUs: 10, value: bytes(4) },
      ],
    ]);
    expect(await store.getManyAt([k('z'), k('a0'), k('a')], 10)).toEqual([bytes(4), bytes(2), bytes(1)]);
    // One pass for 'a' and 'a0', one read of its own for 'z'.
    expect(engine.userIterators).toBe(2);
    expect(store.engineReadStats).toEqual({ keys: 3, keysUntaught: 0, iterators: 2 });
  });
});
