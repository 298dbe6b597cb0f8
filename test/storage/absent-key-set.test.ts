import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AbsentKeySet } from '../../src/storage/absent-key-set.js';
import { encodeKey } from '../../src/storage/key-codec.js';

/** A state key of message n of one queue: keys share a long prefix, as real ones do. */
const stateKey = (n: number) => encodeKey(['q', 'orders', 'g', 3, 'state', 1, `message-${n}`]);

describe('the set of keys known to have no version', () => {
  it('answers exactly like a set of strings under random adds, forgets and lookups', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ op: fc.constantFrom('add', 'forget', 'has'), n: fc.integer({ min: 0, max: 3_000 }) }), {
          maxLength: 4_000,
        }),
        fc.integer({ min: 0, max: 2_500 }),
        (ops, keysMax) => {
          const set = new AbsentKeySet(keysMax);
          const model = new Set<number>();
          for (const { op, n } of ops) {
            if (op === 'add') {
              set.add(stateKey(n));
              if (model.size < keysMax) model.add(n);
            } else if (op === 'forget') {
              set.forget(stateKey(n));
              model.delete(n);
            } else expect(set.has(stateKey(n))).toBe(model.has(n));
          }
          expect(set.size).toBe(model.size);
          for (let n = 0; n <= 3_000; n += 97) expect(set.has(stateKey(n))).toBe(model.has(n));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the oldest keys when full, and takes new ones once forgets make room', () => {
    const set = new AbsentKeySet(3);
    for (const n of [1, 2, 3, 4]) set.add(stateKey(n));
    expect([1, 2, 3, 4].map((n) => set.has(stateKey(n)))).toEqual([true, true, true, false]);
    set.forget(stateKey(1));
    set.add(stateKey(4));
    expect([1, 2, 3, 4].map((n) => set.has(stateKey(n)))).toEqual([false, true, true, true]);
    expect(set.size).toBe(3);
  });

  it('stays exact through the rebuilds of a backlog filled and consumed (its arena reclaimed)', () => {
    const set = new AbsentKeySet(1_000_000);
    const count = 60_000;
    for (let n = 0; n < count; n++) set.add(stateKey(n));
    // Consumed from the head: each first receive writes the key, which the store then forgets.
    for (let n = 0; n < count - 100; n++) set.forget(stateKey(n));
    expect(set.size).toBe(100);
    for (let n = 0; n < count; n += 1_000) expect(set.has(stateKey(n))).toBe(false);
    for (let n = count - 100; n < count; n++) expect(set.has(stateKey(n))).toBe(true);
    // Keys that differ from held ones in length or only in their last byte are not mistaken for them.
    expect(set.has(encodeKey(['q', 'orders', 'g', 3, 'state', 1, `message-${count - 1}x`]))).toBe(false);
    expect(set.has(encodeKey(['q', 'orders', 'g', 3, 'state', 1, `message-${count - 1}`.slice(0, -1) + 'z']))).toBe(
      false,
    );
  });
});
