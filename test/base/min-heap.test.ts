import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MinHeap } from '../../src/base/min-heap.js';

describe('MinHeap', () => {
  it('pops any pushed sequence in sorted order, interleaved with pops', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(null)), { maxLength: 300 }),
        (ops) => {
          const heap = new MinHeap<number>((a, b) => a < b);
          const model: number[] = [];
          for (const op of ops) {
            if (op === null) {
              model.sort((a, b) => a - b);
              expect(heap.pop()).toBe(model.shift());
            } else {
              heap.push(op);
              model.push(op);
            }
            expect(heap.size).toBe(model.length);
          }
          model.sort((a, b) => a - b);
          expect(heap.peek()).toBe(model[0]);
        },
      ),
    );
  });
});
