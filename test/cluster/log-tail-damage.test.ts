import { afterEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { join } from 'node:path';
import { RaftLogDamagedError } from '../../src/cluster/errors.js';
import { LevelLogStore } from '../../src/cluster/level-log-store.js';
import { inspectLevelWal } from '../../src/cluster/level-wal-inspection.js';
import { SeededPrng } from '../../src/base/prng.js';
import { EntryType, type Entry, type HardState } from '../../src/raft/types.js';
import { damageLogTail } from '../../jepsen-like/nemesis/log-tail-damage.js';
import { makeTempDir } from '../support/temp-dir.js';

const bootstrap = {
  confState: { voters: ['n1', 'n2', 'n3'], learners: [] },
  index: 0,
  addresses: { n1: 'a:1', n2: 'a:2', n3: 'a:3' },
};
const utf8 = new TextEncoder();

function entry(index: number, term: number): Entry {
  return { index, term, type: EntryType.Normal, data: utf8.encode(`entry ${index} `.padEnd(200, 'x')) };
}

function entryKey(index: number): Uint8Array {
  const key = new Uint8Array(9);
  key[0] = 0x65;
  new DataView(key.buffer).setBigUint64(1, BigInt(index));
  return key;
}

/** Appends entries 1..count one Ready at a time, the commit index trailing the last entry by `lag`. */
async function writeLog(path: string, count: number, options: { term?: number; lag?: number } = {}): Promise<void> {
  const term = options.term ?? 2;
  const lag = options.lag ?? 3;
  const store = await LevelLogStore.open(path, bootstrap);
  for (let index = 1; index <= count; index++) {
    const hardState: HardState = { term, vote: 'n1', commit: Math.max(0, index - lag) };
    await store.persist(hardState, [entry(index, term)]);
  }
  await store.close();
}

async function withRawDb(
  path: string,
  change: (db: ClassicLevel<Uint8Array, Uint8Array>) => Promise<void>,
): Promise<void> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    await change(db);
  } finally {
    await db.close();
  }
}

async function rawValue(path: string, key: Uint8Array): Promise<Uint8Array> {
  let value: Uint8Array | undefined;
  await withRawDb(path, async (db) => {
    value = await db.get(key);
  });
  if (value === undefined) throw new Error('no such key');
  return value;
}

describe('a damaged Raft log tail', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function freshDataDir(): { dataDir: string; path: string } {
    const dir = makeTempDir('tail');
    cleanups.push(dir.cleanup);
    return { dataDir: dir.path, path: join(dir.path, 'raft') };
  }

  it('is not reported for a log that was closed cleanly and reopened', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 40);
    expect(inspectLevelWal(path, utf8.encode('hs')).damage).toBeNull();
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair).toBeNull();
    expect(store.lastIndex()).toBe(40);
    expect(store.initialState().hardState).toEqual({ term: 2, vote: 'n1', commit: 37 });
    await store.close();
  });

  it('cut by the harness (truncate) is detected and the log is cut back to the commit index known before the lost writes', async () => {
    const { dataDir, path } = freshDataDir();
    await writeLog(path, 40);
    const damage = damageLogTail(dataDir, 'truncate', 700, new SeededPrng(3));
    expect(damage?.bytesAffected).toBe(700);
    const store = await LevelLogStore.open(path, bootstrap);
    const repair = store.tailRepair;
    expect(repair?.walDamage?.kind).toBe('truncated-record');
    // About 250 bytes a Ready: the last two or three Readies are gone, so is their hard state.
    expect(repair?.intactLastIndex).toBeLessThan(40);
    expect(store.lastIndex()).toBe(repair?.keptLastIndex);
    expect(store.lastIndex()).toBe(store.initialState().hardState.commit);
    expect(store.lastIndex()).toBeLessThanOrEqual((repair?.intactLastIndex ?? 0) - 3);
    const kept = store.entries(1, store.lastIndex() + 1, Infinity);
    expect(kept.map((e) => `${e.index}/${e.term}/${new TextDecoder().decode(e.data)}`)).toEqual(
      kept.map((_, i) => `${i + 1}/2/${new TextDecoder().decode(entry(i + 1, 2).data)}`),
    );
    await store.close();
  });

  it("with flipped bytes (the harness's flip) is detected even though LevelDB drops the damaged record silently", async () => {
    const { dataDir, path } = freshDataDir();
    await writeLog(path, 40);
    damageLogTail(dataDir, 'flip', 300, new SeededPrng(11));
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair?.walDamage?.kind).toBe('checksum-mismatch');
    expect(store.lastIndex()).toBeLessThanOrEqual(37);
    expect(store.initialState().hardState.commit).toBe(store.lastIndex());
    await store.close();
  });

  it('is repaired once: the cut-back log reopens clean', async () => {
    const { dataDir, path } = freshDataDir();
    await writeLog(path, 30);
    damageLogTail(dataDir, 'truncate', 100, new SeededPrng(1));
    const first = await LevelLogStore.open(path, bootstrap);
    expect(first.tailRepair).not.toBeNull();
    const keptLastIndex = first.lastIndex();
    await first.persist({ term: 3, vote: '', commit: keptLastIndex }, [entry(keptLastIndex + 1, 3)]);
    await first.close();
    const second = await LevelLogStore.open(path, bootstrap);
    expect(second.tailRepair).toBeNull();
    expect(second.lastIndex()).toBe(keptLastIndex + 1);
    await second.close();
  });

  it('with a flipped byte in an entry at rest is cut before that entry, and the commit index follows', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 20);
    const value = await rawValue(path, entryKey(12));
    value[value.length - 5] = (value[value.length - 5] ?? 0) ^ 0x10;
    await withRawDb(path, (db) => db.put(entryKey(12), value));
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair?.entryDamage).toEqual({ index: 12, reason: 'checksum' });
    expect(store.lastIndex()).toBe(11);
    expect(store.initialState().hardState.commit).toBe(11);
    await store.close();
    await withRawDb(path, async (db) => expect(await db.get(entryKey(13))).toBeUndefined());
  });

  it('with a truncated entry value is cut before that entry', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 20);
    const value = await rawValue(path, entryKey(19));
    await withRawDb(path, (db) => db.put(entryKey(19), value.subarray(0, 30)));
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair?.entryDamage).toEqual({ index: 19, reason: 'checksum' });
    expect(store.lastIndex()).toBe(18);
    expect(store.initialState().hardState.commit).toBe(17);
    await store.close();
  });

  it('with a missing entry is cut before the gap', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 20);
    await withRawDb(path, (db) => db.del(entryKey(9)));
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair?.entryDamage).toEqual({ index: 9, reason: 'missing' });
    expect(store.lastIndex()).toBe(8);
    await store.close();
  });

  it('holding an entry moved under another index is cut there', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 20);
    const value = await rawValue(path, entryKey(15));
    await withRawDb(path, (db) => db.put(entryKey(16), value));
    const store = await LevelLogStore.open(path, bootstrap);
    expect(store.tailRepair?.entryDamage).toEqual({ index: 16, reason: 'checksum' });
    expect(store.lastIndex()).toBe(15);
    await store.close();
  });

  it('whose terms go backwards (an overwrite of a stale tail was lost) is cut where they do', async () => {
    const { path } = freshDataDir();
    const store = await LevelLogStore.open(path, bootstrap);
    await store.persist({ term: 2, vote: '', commit: 2 }, [entry(1, 1), entry(2, 1), entry(3, 2), entry(4, 2)]);
    await store.close();
    // Entry 4 as an older leader wrote it, as if the overwrite had been lost.
    const stale = await LevelLogStore.open(join(path, '..', 'other'), bootstrap);
    await stale.persist({ term: 1, vote: '', commit: 0 }, [entry(1, 1), entry(2, 1), entry(3, 1), entry(4, 1)]);
    await stale.close();
    const staleValue = await rawValue(join(path, '..', 'other'), entryKey(4));
    await withRawDb(path, (db) => db.put(entryKey(4), staleValue));
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.tailRepair?.entryDamage).toEqual({ index: 4, reason: 'term-decreases' });
    expect(reopened.lastIndex()).toBe(3);
    await reopened.close();
  });

  it('never leaves the term below one an intact entry shows, and then forgets the vote', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 10, { term: 2 });
    const store = await LevelLogStore.open(path, bootstrap);
    await store.persist(null, [entry(11, 5), entry(12, 5)]);
    await store.close();
    // Entry 11 lost, entry 12 (term 5) kept: the node had reached term 5 though its hard state says 2.
    await withRawDb(path, (db) => db.del(entryKey(11)));
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.initialState().hardState).toEqual({ term: 5, vote: '', commit: 7 });
    expect(reopened.lastIndex()).toBe(10);
    await reopened.close();
  });

  it('reaching the hard state stops the start with an error that names the repair', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 10);
    const value = await rawValue(path, utf8.encode('hs'));
    value[value.length - 1] = (value[value.length - 1] ?? 0) ^ 0x40;
    await withRawDb(path, (db) => db.put(utf8.encode('hs'), value));
    const error = await LevelLogStore.open(path, bootstrap).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RaftLogDamagedError);
    expect((error as Error).message).toMatch(/hard state fails its checksum.*members remove.*--join.*members add/);
  });

  it('reaching the compaction point stops the start', async () => {
    const { path } = freshDataDir();
    await writeLog(path, 10);
    const store = await LevelLogStore.open(path, bootstrap);
    await store.createSnapshot({ index: 6, confState: bootstrap.confState, addresses: bootstrap.addresses }, 5);
    await store.close();
    const value = await rawValue(path, utf8.encode('dummy'));
    await withRawDb(path, (db) => db.put(utf8.encode('dummy'), value.subarray(1)));
    await expect(LevelLogStore.open(path, bootstrap)).rejects.toThrow(/compaction point entry fails its checksum/);
  });

  it('of a log written without checksums stops the start', async () => {
    const { path } = freshDataDir();
    await withRawDb(path, (db) => db.put(utf8.encode('hs'), Uint8Array.of(8, 1)));
    await expect(LevelLogStore.open(path, bootstrap)).rejects.toThrow(RaftLogDamagedError);
  });
});
