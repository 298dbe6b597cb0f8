import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MostlyOrderedQueue } from '../../src/base/mostly-ordered-queue.js';

/** Pushes (numbers) and pops (null) against a sorted model. */
function checkAgainstModel(ops: ReadonlyArray<number | null>): void {
  const queue = new MostlyOrderedQueue<number>((a, b) => a < b);
  const model: number[] = [];
  for (const op of ops) {
    if (op === null) {
      model.sort((a, b) => a - b);
      expect(queue.peek()).toBe(model[0]);
      expect(queue.pop()).toBe(model.shift());
    } else {
      queue.push(op);
      model.push(op);
    }
    expect(queue.size).toBe(model.length);
  }
  model.sort((a, b) => a - b);
  expect(queue.peek()).toBe(model[0]);
  const drained: number[] = [];
  for (let item = queue.pop(); item !== undefined; item = queue.pop()) drained.push(item);
  expect(drained).toEqual(model);
}

describe('MostlyOrderedQueue', () => {
  it('pops any pushed sequence in sorted order, interleaved with pops', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(null)), { maxLength: 300 }),
        checkAgainstModel,
      ),
    );
  });

  it('stays sorted when most pushes ascend and a few go back (the run and the heap together)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 6, arbitrary: fc.constant('next' as const) },
            { weight: 1, arbitrary: fc.integer({ min: 0, max: 5000 }) },
            { weight: 3, arbitrary: fc.constant(null) },
          ),
          { maxLength: 3000 },
        ),
        (steps) => {
          let next = 0;
          checkAgainstModel(steps.map((step) => (step === 'next' ? (next += 2) : step)));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps order across the compaction of a long run', () => {
    const queue = new MostlyOrderedQueue<number>((a, b) => a < b);
    for (let i = 0; i < 5000; i++) queue.push(i);
    for (let i = 0; i < 3000; i++) expect(queue.pop()).toBe(i);
    for (let i = 5000; i < 6000; i++) queue.push(i);
    queue.push(2999.5);
    expect(queue.pop()).toBe(2999.5);
    for (let i = 3000; i < 6000; i++) expect(queue.pop()).toBe(i);
    expect(queue.pop()).toBeUndefined();
    expect(queue.size).toBe(0);
  });
});
