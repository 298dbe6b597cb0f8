import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactedError, SnapshotOutOfDateError, UnavailableError } from '../../src/raft/errors.js';
import { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import type { Entry } from '../../src/raft/types.js';
import { entry } from './support/node-harness.js';

const confState = { voters: ['1', '2', '3'], learners: [] };

function storageWith(terms: number[]): MemoryRaftStorage {
  const storage = new MemoryRaftStorage({ confState });
  storage.append(terms.map((t, i) => entry(t, i + 1)));
  return storage;
}

describe('MemoryRaftStorage', () => {
  it('starts empty with the bootstrap configuration at index 0', () => {
    const storage = new MemoryRaftStorage({ confState });
    expect(storage.firstIndex()).toBe(1);
    expect(storage.lastIndex()).toBe(0);
    expect(storage.term(0)).toBe(0);
    expect(storage.initialState()).toEqual({ hardState: { term: 0, vote: '', commit: 0 }, confState });
  });

  it('answers term lookups inside the log and refuses them outside, with the right error', () => {
    const storage = storageWith([1, 1, 2, 3, 3]);
    storage.createSnapshot(2, confState, new Uint8Array(0));
    storage.compact(2);
    expect(storage.term(2)).toBe(1);
    expect(storage.term(5)).toBe(3);
    expect(() => storage.term(1)).toThrow(CompactedError);
    expect(() => storage.term(6)).toThrow(UnavailableError);
    expect(() => storage.entries(2, 4, 1_000)).toThrow(CompactedError);
    expect(() => storage.entries(3, 7, 1_000)).toThrow(UnavailableError);
  });

  it('truncates a conflicting tail on append', () => {
    const storage = storageWith([1, 1, 1, 1]);
    storage.append([entry(2, 3), entry(2, 4), entry(2, 5)]);
    expect(storage.entries(1, 6, 1_000).map((e) => e.term)).toEqual([1, 1, 2, 2, 2]);
    storage.append([entry(3, 2)]);
    expect(storage.lastIndex()).toBe(2);
  });

  it('refuses to compact past its snapshot', () => {
    const storage = storageWith([1, 1, 1]);
    storage.createSnapshot(1, confState, new Uint8Array(0));
    expect(() => storage.compact(2)).toThrow(/past the snapshot/);
  });

  it('returns at least one entry even when it alone exceeds the byte limit', () => {
    const storage = storageWith([1, 1, 1]);
    expect(storage.entries(1, 4, 1)).toHaveLength(1);
  });

  it('refuses snapshots no newer than the one it has', () => {
    const storage = storageWith([1, 1, 1]);
    storage.createSnapshot(2, confState, new Uint8Array(0));
    expect(() => storage.createSnapshot(2, confState, new Uint8Array(0))).toThrow(SnapshotOutOfDateError);
    expect(() => storage.applySnapshot({ meta: { index: 1, term: 1, confState }, data: new Uint8Array(0) })).toThrow(
      SnapshotOutOfDateError,
    );
  });

  it('replaces its whole log when it applies a newer snapshot', () => {
    const storage = storageWith([1, 1, 1]);
    const learnerConf = { voters: ['1', '2'], learners: ['3'] };
    storage.applySnapshot({ meta: { index: 10, term: 4, confState: learnerConf }, data: new Uint8Array([1]) });
    expect(storage.firstIndex()).toBe(11);
    expect(storage.lastIndex()).toBe(10);
    expect(storage.term(10)).toBe(4);
    expect(storage.initialState().confState).toEqual(learnerConf);
  });

  it('behaves like a plain array of entries under any sequence of appends and compactions', () => {
    type Op = { kind: 'append'; from: number; terms: number[] } | { kind: 'compact'; at: number };
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('append' as const),
        from: fc.nat(30),
        terms: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
      }),
      fc.record({ kind: fc.constant('compact' as const), at: fc.nat(30) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops: Op[]) => {
        const storage = new MemoryRaftStorage({ confState });
        // The model: every entry ever kept, by index; compaction only moves the first index.
        let model: Entry[] = [];
        let compactedTo = 0;
        for (const o of ops) {
          if (o.kind === 'append') {
            const from = Math.min(o.from + 1, model.length + 1);
            if (from <= compactedTo) continue;
            // Terms must not decrease along a log: offset them from the entry before.
            const base = model[from - 2]?.term ?? 0;
            const entries = o.terms.map((t, i) => entry(base + t, from + i));
            storage.append(entries);
            model = [...model.slice(0, from - 1), ...entries];
          } else if (o.at > compactedTo && o.at <= model.length) {
            if (o.at > storage.snapshot().meta.index) storage.createSnapshot(o.at, confState, new Uint8Array(0));
            storage.compact(o.at);
            compactedTo = o.at;
          }
        }
        expect(storage.lastIndex()).toBe(model.length);
        expect(storage.firstIndex()).toBe(compactedTo + 1);
        for (let i = compactedTo + 1; i <= model.length; i++) expect(storage.term(i)).toBe(model[i - 1]!.term);
        const all =
          storage.lastIndex() >= storage.firstIndex()
            ? storage.entries(storage.firstIndex(), storage.lastIndex() + 1, Number.MAX_SAFE_INTEGER)
            : [];
        expect(all.map((e) => e.index)).toEqual(model.slice(compactedTo).map((e) => e.index));
      }),
      { numRuns: 300 },
    );
  });
});
