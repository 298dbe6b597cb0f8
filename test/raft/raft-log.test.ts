import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import { RaftLog } from '../../src/raft/raft-log.js';
import { entry } from './support/node-harness.js';

const confState = { voters: ['1'], learners: [] };

function logWith(stableTerms: number[], unstableTerms: number[] = []): RaftLog {
  const storage = new MemoryRaftStorage({ confState });
  storage.append(stableTerms.map((t, i) => entry(t, i + 1)));
  const log = new RaftLog(storage, 1 << 20);
  log.append(unstableTerms.map((t, i) => entry(t, stableTerms.length + i + 1)));
  return log;
}

describe('RaftLog', () => {
  it('reads one log across storage and the unstable tail', () => {
    const log = logWith([1, 1], [2, 2]);
    expect(log.lastIndex()).toBe(4);
    expect(log.slice(1, 5, 1 << 20).map((e) => [e.index, e.term])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
    ]);
    expect(log.persistedLastIndex()).toBe(2);
    log.stableTo(4, 2);
    expect(log.persistedLastIndex()).toBe(4);
  });

  it('ignores a stableTo whose term no longer matches (the tail was replaced meanwhile)', () => {
    const log = logWith([1], [1, 1]);
    log.append([entry(2, 2)]);
    log.stableTo(3, 1);
    expect(log.unstable.entries.map((e) => e.index)).toEqual([2]);
  });

  it('finds the last index of a term no greater than the given one, for rejection hints', () => {
    const log = logWith([1, 1, 1, 4, 4, 5, 5, 5]);
    expect(log.findConflictByTerm(8, 5)).toEqual({ index: 8, term: 5 });
    expect(log.findConflictByTerm(8, 4)).toEqual({ index: 5, term: 4 });
    expect(log.findConflictByTerm(8, 3)).toEqual({ index: 3, term: 1 });
    expect(log.findConflictByTerm(8, 0)).toEqual({ index: 0, term: 0 });
    expect(log.findConflictByTerm(20, 9)).toEqual({ index: 8, term: 5 });
  });

  it('appends only what is new and commits no further than the last new entry', () => {
    const log = logWith([1, 1, 1]);
    expect(log.maybeAppend(1, 1, 10, [entry(1, 2)])).toBe(2);
    // Entry 2 matched: nothing truncated, and commit stops at 2 although the leader said 10.
    expect(log.lastIndex()).toBe(3);
    expect(log.committed).toBe(2);
    expect(log.maybeAppend(3, 2, 10, [entry(2, 4)])).toBeNull();
  });

  it('behaves like a single array whatever part is stable', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 20 }),
        fc.nat(20),
        (steps, stableCount) => {
          const terms: number[] = [];
          let t = 1;
          for (const step of steps) {
            t += step;
            terms.push(t);
          }
          const split = Math.min(stableCount, terms.length);
          const log = logWith(terms.slice(0, split), terms.slice(split));
          expect(log.lastIndex()).toBe(terms.length);
          for (let i = 1; i <= terms.length; i++) expect(log.term(i)).toBe(terms[i - 1]);
          for (let lo = 1; lo <= terms.length; lo++) {
            expect(log.slice(lo, terms.length + 1, 1 << 20).map((e) => e.term)).toEqual(terms.slice(lo - 1));
          }
          const last = terms[terms.length - 1]!;
          expect(log.isUpToDate(terms.length, last)).toBe(true);
          expect(log.isUpToDate(terms.length - 1, last)).toBe(false);
          expect(log.isUpToDate(0, last + 1)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
