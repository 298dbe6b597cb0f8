import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine, EngineIterator, EngineIteratorOptions } from '../../src/storage/engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { keyHashOf } from '../../src/storage/key-hash.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore, type VersionWrite } from '../../src/storage/mvcc-store.js';
import {
  entryOverheadBytes,
  NewestVersionCache,
  noVersionTs,
  type NewestVersion,
  type NewestVersionCacheOptions,
} from '../../src/storage/newest-version-cache.js';
import { MvccModel } from './mvcc-model.js';
import { applyVersions } from './apply-versions.js';

const k = (name: string): Uint8Array => encodeKey(['t', name]);
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const roomy: NewestVersionCacheOptions = { entriesMax: 100, bytesMax: 1_000_000, valueBytesMax: 1_000 };

/** An engine that counts the iterators opened on it, and can hold the next read of one until released. */
class WatchedEngine {
  iteratorsOpened = 0;
  private gate: { opened: Promise<void>; markOpened(): void; release(): void; released: Promise<void> } | null = null;

  constructor(readonly inner: Engine) {}

  /** The next iterator read returns what the engine held when it was asked, but only once released. */
  holdNextRead(): { opened: Promise<void>; release(): void } {
    let markOpened = (): void => {};
    let release = (): void => {};
    const opened = new Promise<void>((resolve) => (markOpened = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.gate = { opened, markOpened, release, released };
    return { opened, release };
  }

  engine(): Engine {
    const watched = this;
    return new Proxy(this.inner, {
      get(target, property, receiver) {
        if (property !== 'iterator') return Reflect.get(target, property, receiver) as unknown;
        return (options: EngineIteratorOptions): EngineIterator => {
          watched.iteratorsOpened += 1;
          const inner = target.iterator(options);
          return {
            seek: (key) => inner.seek(key),
            close: () => inner.close(),
            next: async (entriesMax) => {
              const entries = await inner.next(entriesMax);
              const gate = watched.gate;
              if (gate !== null) {
                watched.gate = null;
                gate.markOpened();
                await gate.released;
              }
              return entries;
            },
          };
        };
      },
    });
  }
}

/** The fields callers read, without the cache's bookkeeping. */
const versionOf = (found: NewestVersion | undefined) =>
  found === undefined ? undefined : { commitTsUs: found.commitTsUs, isValue: found.isValue, value: found.value };

/** Bounds that hold `entries` entries with values of `valueBytes` bytes and keys like k('…'). */
const roomFor = (entries: number, valueBytes: number): NewestVersionCacheOptions => ({
  entriesMax: 1_000,
  bytesMax: entries * (valueBytes + 8 + entryOverheadBytes),
  valueBytesMax: 1_000,
});

describe('NewestVersionCache', () => {
  it('answers what was remembered, and keeps a copy of the value and key it was given', () => {
    const cache = new NewestVersionCache(roomy);
    cache.remember(k('a'), 10, bytes(1, 2));
    cache.remember(k('b'), 11, undefined);
    const given = bytes(3, 4);
    const givenKey = k('c');
    cache.remember(givenKey, 12, given);
    given.fill(9);
    givenKey.fill(0);
    expect(versionOf(cache.lookup(k('a')))).toEqual({ commitTsUs: 10, isValue: true, value: bytes(1, 2) });
    expect(cache.lookup(k('c'))?.value).toEqual(bytes(3, 4));
    expect(versionOf(cache.lookup(k('b')))).toEqual({ commitTsUs: 11, isValue: false, value: undefined });
    expect(cache.lookup(k('d'))).toBeUndefined();
    expect(cache.stats).toEqual({ hits: 3, misses: 1 });
  });

  it('tells keys apart whose hashes collide', () => {
    const byHash = new Map<number, Uint8Array[]>();
    for (let i = 0; i < 200_000; i++) {
      const key = encodeKey(['t', `m${(i * 2_654_435_761) % 1_000_000_007}`]);
      const same = byHash.get(keyHashOf(key));
      if (same === undefined) byHash.set(keyHashOf(key), [key]);
      else same.push(key);
    }
    const keys = [...byHash.values()].filter((same) => same.length > 1).flat();
    expect(keys.length).toBeGreaterThanOrEqual(4);
    const cache = new NewestVersionCache({ entriesMax: 1_000, bytesMax: 10_000_000, valueBytesMax: 100 });
    keys.forEach((key, i) => cache.remember(key, i + 1, bytes(i % 256)));
    keys.forEach((key, i) => expect(cache.lookup(key)?.value).toEqual(bytes(i % 256)));
    // Forget every other one (first and second of a pair alike), and the rest still answer.
    keys.forEach((key, i) => {
      if (i % 2 === 0) cache.forgetVersion(key, i + 1);
    });
    keys.forEach((key, i) => expect(cache.lookup(key)?.commitTsUs).toBe(i % 2 === 0 ? undefined : i + 1));
    expect(cache.size).toBe(keys.length - Math.ceil(keys.length / 2));
  });

  it('keeps the oldest unread values when full: a newer write does not push them out', () => {
    const cache = new NewestVersionCache({ ...roomy, entriesMax: 3 });
    for (let i = 0; i < 6; i++) cache.remember(k(`m${i}`), i + 1, bytes(i));
    expect([0, 1, 2].map((i) => cache.lookup(k(`m${i}`))?.value)).toEqual([bytes(0), bytes(1), bytes(2)]);
    expect([3, 4, 5].map((i) => cache.lookup(k(`m${i}`)))).toEqual([undefined, undefined, undefined]);
    expect(cache.size).toBe(3);
  });

  it('drops deletion markers and unknown keys before any value, oldest first', () => {
    const cache = new NewestVersionCache({ ...roomy, entriesMax: 4 });
    cache.remember(k('m0'), 1, bytes(0));
    cache.remember(k('m1'), 2, bytes(1));
    cache.remember(k('gone'), 3, undefined);
    cache.remember(k('never'), noVersionTs, undefined);
    // m0 consumed: its value becomes a deletion marker, and markers go first.
    cache.remember(k('m0'), 4, undefined);
    cache.remember(k('m2'), 5, bytes(2));
    expect(cache.lookup(k('gone'))).toBeUndefined();
    cache.remember(k('m3'), 6, bytes(3));
    expect(cache.lookup(k('never'))).toBeUndefined();
    expect(versionOf(cache.lookup(k('m0')))).toEqual({ commitTsUs: 4, isValue: false, value: undefined });
    expect([1, 2, 3].map((i) => cache.lookup(k(`m${i}`))?.value)).toEqual([bytes(1), bytes(2), bytes(3)]);
  });

  it('makes room for a value learned by a read, and keeps a read entry rewritten as a value', () => {
    const cache = new NewestVersionCache({ ...roomy, entriesMax: 4 });
    cache.remember(k('meta'), 1, bytes(9));
    expect(cache.lookup(k('meta'))?.value).toEqual(bytes(9));
    for (let i = 0; i < 3; i++) cache.remember(k(`m${i}`), 2 + i, bytes(i));
    // A consumer reads a message the cache did not keep: it stays (for the delete), the newest unread one goes.
    cache.remember(k('far'), 5, bytes(5), { isRead: true });
    expect(cache.lookup(k('m2'))).toBeUndefined();
    // The hot meta row rewritten is still read, so new writes do not push it out either.
    cache.remember(k('meta'), 6, bytes(8));
    cache.remember(k('m9'), 7, bytes(7));
    expect(versionOf(cache.lookup(k('meta')))).toEqual({ commitTsUs: 6, isValue: true, value: bytes(8) });
    expect(cache.lookup(k('far'))?.value).toEqual(bytes(5));
    expect([0, 1].map((i) => cache.lookup(k(`m${i}`))?.value)).toEqual([bytes(0), bytes(1)]);
    expect(cache.lookup(k('m9'))).toBeUndefined();
  });

  it('without keepsUnreadValues (a follower) remembers written versions without their values, and keeps those of keys read', () => {
    const cache = new NewestVersionCache(roomy);
    cache.remember(k('meta'), 1, bytes(9), { isRead: true });
    cache.keepsUnreadValues = false;
    cache.remember(k('m0'), 2, bytes(1, 2, 3));
    cache.remember(k('meta'), 3, bytes(8));
    expect(cache.segmentSizes.cold).toBe(1);
    expect(versionOf(cache.lookup(k('m0')))).toEqual({ commitTsUs: 2, isValue: true, value: undefined });
    expect(versionOf(cache.lookup(k('meta')))).toEqual({ commitTsUs: 3, isValue: true, value: bytes(8) });
    // A point read wants its value whatever the role; a leader again keeps what it writes.
    cache.remember(k('m1'), 4, bytes(4), { isRead: true });
    expect(cache.lookup(k('m1'))?.value).toEqual(bytes(4));
    cache.keepsUnreadValues = true;
    cache.remember(k('m2'), 5, bytes(5));
    expect(cache.lookup(k('m2'))?.value).toEqual(bytes(5));
  });

  it('answers a validation (versionOf) without making the key read: a follower then keeps no value of its next write', () => {
    const cache = new NewestVersionCache(roomy);
    cache.keepsUnreadValues = false;
    cache.remember(k('state'), 1, bytes(1));
    cache.remember(k('read'), 1, bytes(1));
    expect(versionOf(cache.versionOf(k('state')))).toEqual({ commitTsUs: 1, isValue: true, value: undefined });
    expect(cache.versionOf(k('absent'))).toBeUndefined();
    cache.lookup(k('read'));
    cache.remember(k('state'), 2, bytes(2, 2));
    cache.remember(k('read'), 2, bytes(3, 3));
    expect(cache.segmentSizes).toEqual({ cold: 1, unread: 0, read: 1 });
    expect(cache.versionOf(k('state'))?.value).toBeUndefined();
    expect(cache.versionOf(k('read'))?.value).toEqual(bytes(3, 3));
    // Counted like lookups: three validations hit and one missed, besides the lookup's hit.
    expect(cache.stats).toEqual({ hits: 4, misses: 1 });
  });

  it('lets read entries take at most half of the room from unread values, least recently used first', () => {
    const cache = new NewestVersionCache({ ...roomy, entriesMax: 4 });
    for (let i = 0; i < 4; i++) cache.remember(k(`m${i}`), 1 + i, bytes(i));
    for (let i = 0; i < 3; i++) cache.remember(k(`r${i}`), 10 + i, bytes(i), { isRead: true });
    expect(cache.segmentSizes).toEqual({ cold: 0, unread: 2, read: 2 });
    expect(cache.lookup(k('r0'))).toBeUndefined();
    expect([1, 2].map((i) => cache.lookup(k(`r${i}`))?.commitTsUs)).toEqual([11, 12]);
    expect([0, 1].map((i) => cache.lookup(k(`m${i}`))?.commitTsUs)).toEqual([1, 2]);
  });

  it('holds both bounds whatever is remembered, looked up and forgotten', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom('write', 'read', 'learn', 'delete', 'forget'),
            key: fc.integer({ min: 0, max: 40 }),
            size: fc.integer({ min: 0, max: 300 }),
          }),
          { maxLength: 300 },
        ),
        (ops) => {
          const bounds = { entriesMax: 12, bytesMax: 8 * (100 + entryOverheadBytes), valueBytesMax: 200 };
          const cache = new NewestVersionCache(bounds);
          const newest = new Map<number, { ts: number; value: Uint8Array | undefined }>();
          ops.forEach(({ op, key, size }, i) => {
            const ts = i + 1;
            const value = new Uint8Array(size).fill(key);
            if (op === 'write' || op === 'learn' || op === 'delete') {
              const written = op === 'delete' ? undefined : value;
              cache.remember(encodeKey(['t', key]), ts, written, { isRead: op === 'learn' });
              newest.set(key, { ts, value: written });
            } else if (op === 'forget') {
              const known = newest.get(key);
              if (known !== undefined) cache.forgetVersion(encodeKey(['t', key]), known.ts);
              newest.delete(key);
            } else {
              const found = cache.lookup(encodeKey(['t', key]));
              const known = newest.get(key);
              if (found !== undefined) {
                expect(found.commitTsUs).toBe(known?.ts);
                expect(found.isValue).toBe(known?.value !== undefined);
                if (found.value !== undefined) expect(found.value).toEqual(known?.value);
              }
            }
            expect(cache.size).toBeLessThanOrEqual(bounds.entriesMax);
            expect(cache.sizeBytes).toBeLessThanOrEqual(bounds.bytesMax);
            const { cold, unread, read } = cache.segmentSizes;
            expect(cold + unread + read).toBe(cache.size);
          });
        },
      ),
    );
  });

  it('answers a deletion marker over a kept value without the old value, and a value written after it with the new one', () => {
    const cache = new NewestVersionCache(roomy);
    cache.remember(k('m'), 1, new Uint8Array(40).fill(7), { isRead: true });
    const held = cache.lookup(k('m'))?.value;
    cache.remember(k('m'), 2, undefined);
    expect(versionOf(cache.lookup(k('m')))).toEqual({ commitTsUs: 2, isValue: false, value: undefined });
    // What a reader took before the marker is unchanged.
    expect(held).toEqual(new Uint8Array(40).fill(7));
    const bytesWithMarker = cache.sizeBytes;
    cache.remember(k('m'), 3, new Uint8Array(10).fill(9), { isRead: true });
    expect(cache.lookup(k('m'))?.value).toEqual(new Uint8Array(10).fill(9));
    expect(held).toEqual(new Uint8Array(40).fill(7));
    expect(cache.sizeBytes).toBeLessThan(bytesWithMarker);
    cache.forgetVersion(k('m'), 3);
    expect(cache.sizeBytes).toBe(0);
  });

  it('stays within bytesMax, and keeps only the version of a value larger than valueBytesMax', () => {
    const cache = new NewestVersionCache({ ...roomFor(3, 100), valueBytesMax: 100 });
    cache.remember(k('big'), 1, new Uint8Array(101));
    expect(versionOf(cache.lookup(k('big')))).toEqual({ commitTsUs: 1, isValue: true, value: undefined });
    for (let i = 0; i < 10; i++) cache.remember(k(`v${i}`), 2 + i, new Uint8Array(100));
    expect(cache.sizeBytes).toBeLessThanOrEqual(roomFor(3, 100).bytesMax);
    expect(cache.lookup(k('v0'))?.value?.byteLength).toBe(100);
    expect(cache.lookup(k('v9'))).toBeUndefined();
  });

  it('keeps the version of a key a point read learned, value too large or none, past the cold entries', () => {
    const cache = new NewestVersionCache({ ...roomy, entriesMax: 4, valueBytesMax: 8 });
    // A receive read a body too large to keep, and a key with no version: its validation comes next.
    cache.remember(k('body'), 1, new Uint8Array(64), { isRead: true });
    cache.remember(k('attempt'), noVersionTs, undefined, { isRead: true });
    // Markers of consumed messages arrive meanwhile; they, not what was just read, make room.
    for (let i = 0; i < 6; i++) cache.remember(k(`gone${i}`), 2 + i, undefined);
    expect(versionOf(cache.lookup(k('body')))).toEqual({ commitTsUs: 1, isValue: true, value: undefined });
    expect(cache.lookup(k('attempt'))?.commitTsUs).toBe(noVersionTs);
    expect(cache.segmentSizes).toEqual({ cold: 2, unread: 0, read: 2 });
  });

  it('refuses a version older than the one it holds', () => {
    const cache = new NewestVersionCache(roomy);
    cache.remember(k('a'), 10, bytes(1));
    expect(() => cache.remember(k('a'), 9, bytes(0))).toThrow(/cannot go back/);
    cache.remember(k('a'), 10, bytes(2));
    expect(cache.lookup(k('a'))?.value).toEqual(bytes(2));
  });
});

describe('MvccStore with the newest-version cache', () => {
  it('answers a point read of a key the apply step wrote without opening an engine iterator', async () => {
    const watched = new WatchedEngine(new MemoryEngine());
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    await applyVersions(store, [
      { key: k('a'), commitTsUs: 10, value: bytes(7) },
      { key: k('b'), commitTsUs: 10, value: undefined },
    ]);
    const before = watched.iteratorsOpened;
    const read = await store.getAt(k('a'), 10);
    expect(read).toEqual(bytes(7));
    // The cache's own bytes (ReadView.get: readers do not write into them), not a copy per read.
    expect((await store.getAt(k('a'), 10))?.buffer).toBe(read?.buffer);
    expect(await store.getAt(k('b'), 12)).toBeUndefined();
    expect(await store.latestVersionsOfKeys([k('a'), k('b')])).toEqual([
      { commitTsUs: 10, isValue: true },
      { commitTsUs: 10, isValue: false },
    ]);
    expect(watched.iteratorsOpened).toBe(before);
    // Older than the newest version: only the engine has the answer.
    expect(await store.getAt(k('a'), 9)).toBeUndefined();
    expect(watched.iteratorsOpened).toBe(before + 1);
  });

  it('learns the newest version of a key from an OCC lookup, so the next lookup and read skip the engine', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [{ key: k('meta'), commitTsUs: 5, value: bytes(1) }]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    expect(await store.latestVersionsOfKeys([k('meta'), k('none')])).toEqual([
      { commitTsUs: 5, isValue: true },
      undefined,
    ]);
    const afterFirst = watched.iteratorsOpened;
    expect(afterFirst).toBeGreaterThan(0);
    expect(await store.latestVersionsOfKeys([k('meta')])).toEqual([{ commitTsUs: 5, isValue: true }]);
    expect(await store.getAt(k('meta'), 5)).toEqual(bytes(1));
    expect(watched.iteratorsOpened).toBe(afterFirst);
  });

  it('learns from a point read at the newest timestamp, that a key has no version included, so the OCC lookup skips the engine', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [{ key: k('data'), commitTsUs: 5, value: bytes(3) }]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    // Below the newest commit a read learns nothing: a newer version may exist.
    expect(await store.getAt(k('data'), 4)).toBeUndefined();
    expect(await store.getAt(k('data'), 5)).toEqual(bytes(3));
    expect(await store.getAt(k('never'), 5)).toBeUndefined();
    const afterReads = watched.iteratorsOpened;
    expect(await store.latestVersionsOfKeys([k('data'), k('never')])).toEqual([
      { commitTsUs: 5, isValue: true },
      undefined,
    ]);
    expect(await store.getAt(k('never'), 5)).toBeUndefined();
    expect(watched.iteratorsOpened).toBe(afterReads);
    // The key that had no version gets one: the cache follows the write.
    await applyVersions(store, [{ key: k('never'), commitTsUs: 9, value: bytes(4) }]);
    expect(await store.latestVersionsOfKeys([k('never')])).toEqual([{ commitTsUs: 9, isValue: true }]);
    expect(await store.getAt(k('never'), 8)).toBeUndefined();
    expect(await store.getAt(k('never'), 9)).toEqual(bytes(4));
  });

  it('does not learn from a point read that an apply batch overtook', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [{ key: k('b'), commitTsUs: 10, value: bytes(1) }]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    const held = watched.holdNextRead();
    const read = store.getAt(k('a'), 10);
    await held.opened;
    await applyVersions(store, [{ key: k('a'), commitTsUs: 20, value: bytes(2) }]);
    held.release();
    expect(await read).toBeUndefined();
    expect(await store.latestVersionsOfKeys([k('a')])).toEqual([{ commitTsUs: 20, isValue: true }]);
    expect(await store.getAt(k('a'), 20)).toEqual(bytes(2));
  });

  it('learns from a point read below the last commit when nothing of its key was written above the read', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [{ key: k('data'), commitTsUs: 5, value: bytes(3) }]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    // Other keys move the last commit on while a view at 7 stays open, as a receive's does under load.
    await applyVersions(store, [{ key: k('other'), commitTsUs: 9, value: bytes(1) }]);
    expect(await store.getAt(k('data'), 7)).toEqual(bytes(3));
    expect(await store.getAt(k('never'), 7)).toBeUndefined();
    const afterReads = watched.iteratorsOpened;
    expect(await store.latestVersionsOfKeys([k('data'), k('never')])).toEqual([
      { commitTsUs: 5, isValue: true },
      undefined,
    ]);
    expect(watched.iteratorsOpened).toBe(afterReads);
  });

  it('does not learn from a point read below a write of its key, whether the write came before the read or during it', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [
      { key: k('a'), commitTsUs: 5, value: bytes(1) },
      { key: k('b'), commitTsUs: 5, value: bytes(1) },
    ]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    await applyVersions(store, [{ key: k('a'), commitTsUs: 9, value: bytes(2) }]);
    // Were the read at 7 to teach the cache, the cache would be asked to go back from 9 to 5.
    expect(await store.getAt(k('a'), 7)).toEqual(bytes(1));
    const held = watched.holdNextRead();
    const read = store.getAt(k('b'), 9);
    await held.opened;
    await applyVersions(store, [{ key: k('b'), commitTsUs: 12, value: bytes(3) }]);
    held.release();
    expect(await read).toEqual(bytes(1));
    expect(await store.latestVersionsOfKeys([k('a'), k('b')])).toEqual([
      { commitTsUs: 9, isValue: true },
      { commitTsUs: 12, isValue: true },
    ]);
    expect(await store.getAt(k('a'), 12)).toEqual(bytes(2));
    expect(await store.getAt(k('b'), 12)).toEqual(bytes(3));
  });

  it("does not learn from a point read during which collection removed its key's newest version", async () => {
    const memory = new MemoryEngine();
    const writer = await MvccStore.open(memory, { historyMs: 4 });
    await applyVersions(writer, [{ key: k('a'), commitTsUs: 1_000, value: bytes(1) }]);
    await applyVersions(writer, [{ key: k('a'), commitTsUs: 2_000, value: undefined }]);
    for (const ts of [5_000, 9_000, 14_000])
      await applyVersions(writer, [{ key: k('b'), commitTsUs: ts, value: bytes(2) }]);
    // Opened anew, the store has nothing cached: the read goes to the engine and finds the marker.
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { historyMs: 4, newestVersionCache: roomy });
    const held = watched.holdNextRead();
    const read = store.getAt(k('a'), 14_000);
    await held.opened;
    expect((await store.collectGarbage({ rowsMax: 100 })).deletionMarkersRemoved).toBe(1);
    held.release();
    expect(await read).toBeUndefined();
    expect(await store.latestVersionsOfKeys([k('a')])).toEqual([undefined]);
  });

  it('does not remember a version read by a lookup that an apply batch overtook', async () => {
    const memory = new MemoryEngine();
    await applyVersions(await MvccStore.open(memory), [{ key: k('a'), commitTsUs: 10, value: bytes(1) }]);
    const watched = new WatchedEngine(memory);
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: roomy });
    const held = watched.holdNextRead();
    const lookup = store.latestVersionsOfKeys([k('a')]);
    await held.opened;
    await applyVersions(store, [{ key: k('a'), commitTsUs: 20, value: bytes(2) }]);
    held.release();
    // The lookup answers as of when it read; what it read must not replace the newer version.
    expect(await lookup).toEqual([{ commitTsUs: 10, isValue: true }]);
    expect(await store.getAt(k('a'), 20)).toEqual(bytes(2));
    expect(await store.latestVersionsOfKeys([k('a')])).toEqual([{ commitTsUs: 20, isValue: true }]);
  });

  it('forgets a deletion marker that collection removes, as the engine does', async () => {
    const store = await MvccStore.open(new MemoryEngine(), { historyMs: 4, newestVersionCache: roomy });
    await applyVersions(store, [{ key: k('a'), commitTsUs: 1_000, value: bytes(1) }]);
    await applyVersions(store, [{ key: k('a'), commitTsUs: 2_000, value: undefined }]);
    for (const ts of [5_000, 9_000, 14_000])
      await applyVersions(store, [{ key: k('b'), commitTsUs: ts, value: bytes(2) }]);
    expect(store.horizonTs).toBeGreaterThanOrEqual(2_000);
    const report = await store.collectGarbage({ rowsMax: 100 });
    expect(report.deletionMarkersRemoved).toBe(1);
    expect(await store.latestCommitTs(k('a'))).toBeUndefined();
    expect(await store.latestVersionsOfKeys([k('a'), k('b')])).toEqual([
      undefined,
      { commitTsUs: 14_000, isValue: true },
    ]);
  });

  it('serves a backlog larger than the cache from its head: the consumed make room for what was not kept', async () => {
    const watched = new WatchedEngine(new MemoryEngine());
    // Room for 4 of the 12 messages sent (a data row each).
    const store = await MvccStore.open(watched.engine(), { newestVersionCache: { ...roomFor(4, 100), entriesMax: 6 } });
    const message = (i: number) => k(`m${String(i).padStart(2, '0')}`);
    for (let i = 0; i < 12; i++)
      await applyVersions(store, [{ key: message(i), commitTsUs: 10 + i, value: new Uint8Array(100).fill(i) }]);
    let ts = 100;
    const consume = async (i: number): Promise<void> => {
      expect((await store.getAt(message(i), ts))?.[0]).toBe(i);
      expect((await store.latestVersionsOfKeys([message(i)]))[0]?.commitTsUs).toBe(10 + i);
      ts += 1;
      await applyVersions(store, [{ key: message(i), commitTsUs: ts, value: undefined }]);
    };
    const before = watched.iteratorsOpened;
    for (let i = 0; i < 4; i++) await consume(i);
    // The four oldest came from memory (a least-recently-used cache would have kept the newest four).
    expect(watched.iteratorsOpened).toBe(before);
    // Past them: one read each, which the validation and the delete's read then find in memory.
    for (let i = 4; i < 12; i++) await consume(i);
    expect(watched.iteratorsOpened).toBe(before + 8);
    expect(await store.getAt(message(11), ts)).toBeUndefined();
  });

  it('reads (one key or many) and OCC lookups equal the model through commits, collection and evictions of a tiny cache', async () => {
    const names = ['a', 'b', 'c'];
    const step = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('commit' as const),
          gapUs: fc.integer({ min: 1, max: 3000 }),
          writes: fc.array(
            fc.tuple(fc.nat(names.length - 1), fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined })),
            { minLength: 1, maxLength: 3 },
          ),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('lookup' as const),
          which: fc.array(fc.nat(names.length - 1), { minLength: 1, maxLength: 3 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('read' as const),
          which: fc.nat(names.length - 1),
          back: fc.nat(4000),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('readMany' as const),
          which: fc.array(fc.nat(names.length - 1), { minLength: 1, maxLength: 4 }),
          back: fc.nat(4000),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('gc' as const), rowsMax: fc.integer({ min: 1, max: 20 }) }),
      },
      // Leadership moving: a follower's cache keeps versions of unread keys, not their values.
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('role' as const), isLeader: fc.boolean() }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        // Two entries, and values of two bytes are not kept: every path of the cache is taken.
        const store = await MvccStore.open(new MemoryEngine(), {
          historyMs: 4,
          newestVersionCache: { entriesMax: 2, bytesMax: 10_000, valueBytesMax: 1 },
        });
        const model = new MvccModel();
        let ts = 0;
        for (const s of steps) {
          if (s.kind === 'commit') {
            ts += s.gapUs;
            const versions = s.writes.map(([n, length]) => ({
              key: k(names[n] as string),
              commitTsUs: ts,
              value: length === undefined ? undefined : new Uint8Array(length).fill(ts % 251),
            }));
            for (const v of versions) model.write(v.key, v.commitTsUs, v.value);
            await applyVersions(store, versions);
          } else if (s.kind === 'lookup') {
            const keys = s.which.map((n) => k(names[n] as string));
            const latest = await store.latestVersionsOfKeys(keys);
            for (const [i, key] of keys.entries()) {
              const version = latest[i];
              expect(version?.isValue === true).toBe(model.getAt(key, ts) !== undefined);
              // The engine's own newest version (read without the cache), removed markers included.
              expect(version?.commitTsUs).toBe(await store.latestCommitTs(key));
              const modelLatest = model.latestCommitTs(key) ?? -1;
              expect((version?.commitTsUs ?? -1) > store.horizonTs).toBe(modelLatest > store.horizonTs);
            }
          } else if (s.kind === 'read') {
            const readTs = Math.max(0, ts - s.back);
            const key = k(names[s.which] as string);
            if (readTs >= store.readFloorTs) expect(await store.getAt(key, readTs)).toEqual(model.getAt(key, readTs));
          } else if (s.kind === 'readMany') {
            const readTs = Math.max(0, ts - s.back);
            const keys = s.which.map((n) => k(names[n] as string));
            if (readTs >= store.readFloorTs)
              expect(await store.getManyAt(keys, readTs)).toEqual(keys.map((key) => model.getAt(key, readTs)));
          } else if (s.kind === 'role') {
            store.setKeepsUnreadValues(s.isLeader);
          } else {
            await store.collectGarbage({ rowsMax: s.rowsMax });
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
