import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { decodeMembership, LevelLogStore } from '../../src/cluster/level-log-store.js';
import { CompactedError, UnavailableError } from '../../src/raft/errors.js';
import { EntryType, type Entry } from '../../src/raft/types.js';
import { makeTempDir } from '../support/temp-dir.js';

const confState0 = { voters: ['n1', 'n2', 'n3'], learners: [] };
const addresses = { n1: '127.0.0.1:1', n2: '127.0.0.1:2', n3: '127.0.0.1:3' };
const bootstrap = { confState: confState0, index: 0, addresses };

function entry(index: number, term: number, text = `e${index}`): Entry {
  return { index, term, type: EntryType.Normal, data: new TextEncoder().encode(text) };
}

function range(from: number, to: number, term: number): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) out.push(entry(i, term));
  return out;
}

describe('LevelLogStore', () => {
  const dirs: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of dirs.splice(0)) cleanup();
  });

  async function openFresh(): Promise<{ store: LevelLogStore; path: string }> {
    const dir = makeTempDir('log');
    dirs.push(dir.cleanup);
    const path = join(dir.path, 'raft');
    return { store: await LevelLogStore.open(path, bootstrap), path };
  }

  it('starts empty with the bootstrap configuration', async () => {
    const { store } = await openFresh();
    expect(store.initialState()).toEqual({ hardState: { term: 0, vote: '', commit: 0 }, confState: confState0 });
    expect(store.firstIndex()).toBe(1);
    expect(store.lastIndex()).toBe(0);
    expect(store.term(0)).toBe(0);
    await store.close();
  });

  it('keeps hard state and entries across a reopen', async () => {
    const { store, path } = await openFresh();
    await store.persist({ term: 2, vote: 'n1', commit: 3 }, range(1, 5, 2));
    await store.close();
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.initialState().hardState).toEqual({ term: 2, vote: 'n1', commit: 3 });
    expect(reopened.lastIndex()).toBe(5);
    expect(reopened.entries(2, 4, Infinity).map((e) => e.index)).toEqual([2, 3]);
    expect(new TextDecoder().decode(reopened.entries(5, 6, Infinity)[0]?.data)).toBe('e5');
    await reopened.close();
  });

  it('replaces a conflicting tail, in memory and on disk', async () => {
    const { store, path } = await openFresh();
    await store.persist(null, range(1, 6, 1));
    await store.persist(null, [entry(4, 2, 'new4')]);
    expect(store.lastIndex()).toBe(4);
    expect(store.term(4)).toBe(2);
    await store.close();
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.lastIndex()).toBe(4);
    expect(new TextDecoder().decode(reopened.entries(4, 5, Infinity)[0]?.data)).toBe('new4');
    await reopened.close();
  });

  it('answers out-of-range reads with CompactedError and UnavailableError', async () => {
    const { store } = await openFresh();
    await store.persist(null, range(1, 10, 1));
    await store.createSnapshot({ index: 8, confState: confState0, addresses }, 5);
    expect(store.firstIndex()).toBe(6);
    expect(store.term(5)).toBe(1);
    expect(() => store.entries(5, 7, Infinity)).toThrow(CompactedError);
    expect(() => store.term(11)).toThrow(UnavailableError);
    expect(store.snapshot().meta).toEqual({ index: 8, term: 1, confState: confState0 });
    expect(decodeMembership(store.snapshot().data).addresses).toEqual(addresses);
    await store.close();
  });

  it('compacts durably: a reopened log starts after the compaction point', async () => {
    const { store, path } = await openFresh();
    await store.persist(null, range(1, 10, 1));
    const bytesBefore = store.logBytes();
    await store.createSnapshot({ index: 9, confState: confState0, addresses }, 7);
    expect(store.logBytes()).toBeLessThan(bytesBefore);
    await store.close();
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.firstIndex()).toBe(8);
    expect(reopened.lastIndex()).toBe(10);
    expect(reopened.snapshot().meta.index).toBe(9);
    await reopened.close();
  });

  it('applies a received snapshot: the log restarts at its index with its configuration', async () => {
    const { store, path } = await openFresh();
    await store.persist(null, range(1, 4, 1));
    const confState = { voters: ['n1', 'n2'], learners: ['n4'] };
    await store.applySnapshot({ index: 50, term: 3, confState }, { ...addresses, n4: '127.0.0.1:4' });
    expect(store.firstIndex()).toBe(51);
    expect(store.lastIndex()).toBe(50);
    expect(store.term(50)).toBe(3);
    await store.persist(null, [entry(51, 3)]);
    await store.close();
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.initialState().confState).toEqual(confState);
    expect(reopened.currentMembership().addresses['n4']).toBe('127.0.0.1:4');
    expect(reopened.lastIndex()).toBe(51);
    expect(reopened.firstIndex()).toBe(51);
    await reopened.close();
  });

  it('records the configuration of the last applied conf change', async () => {
    const { store, path } = await openFresh();
    const confState = { voters: ['n1', 'n2', 'n3'], learners: ['n4'] };
    await store.recordMembership({ confState, index: 7, addresses });
    await store.close();
    const reopened = await LevelLogStore.open(path, bootstrap);
    expect(reopened.currentMembership()).toEqual({ confState, index: 7, addresses });
    await reopened.close();
  });
});
