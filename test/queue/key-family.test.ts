import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyStateKey, generationRangeOf } from '../../src/queue/layout/key-family.js';
import { GenerationKeys, globalKeys, queueKeys } from '../../src/queue/layout/key-layout.js';
import { compareBytes, decodeKey, encodeKey } from '../../src/storage/key-codec.js';

describe('state key families', () => {
  it('name the family and generation of every key the queue layer writes', () => {
    const keys = new GenerationKeys('orders.fifo', 7);
    const cases: Array<[Uint8Array, ReturnType<typeof classifyStateKey>]> = [
      [queueKeys.meta('orders.fifo'), { family: 'meta' }],
      [queueKeys.generation('orders.fifo'), { family: 'gen' }],
      [queueKeys.sequence('orders.fifo', 3), { family: 'seq' }],
      [keys.data(0, 'm'), { family: 'data', generationId: 'orders.fifo/7' }],
      [keys.receiveState(0, 'm'), { family: 'state', generationId: 'orders.fifo/7' }],
      [keys.visibility(1, 5, 9n, 'm'), { family: 'vis', generationId: 'orders.fifo/7' }],
      [keys.age(0, 5, 'm'), { family: 'age', generationId: 'orders.fifo/7' }],
      [keys.groupMember(0, 'g', 9n), { family: 'group', generationId: 'orders.fifo/7' }],
      [keys.dedup(0, 'g', 'd'), { family: 'dedup', generationId: 'orders.fifo/7' }],
      [keys.receiveAttempt('a'), { family: 'attempt', generationId: 'orders.fifo/7' }],
      [globalKeys.queueIndex('orders.fifo'), { family: 'queues' }],
      [globalKeys.deadLetterSource('dlq', 'orders.fifo'), { family: 'dlqsrc' }],
      [globalKeys.tombstone('orders.fifo', 7), { family: 'tombstone', generationId: 'orders.fifo/7' }],
      [globalKeys.moveTask('arn', 'task'), { family: 'move' }],
      [encodeKey(['t', 'x']), { family: 'other' }],
      [Uint8Array.of(0xff), { family: 'other' }],
    ];
    for (const [key, expected] of cases) expect(classifyStateKey(key)).toEqual(expected);
  });

  it('classifies every key the same in any order, also keys that are byte prefixes of others', () => {
    const cases: Array<[Uint8Array, ReturnType<typeof classifyStateKey>]> = [];
    for (const name of ['a', 'ab', 'orders.fifo']) {
      for (const generation of [1, 2, 300]) {
        const keys = new GenerationKeys(name, generation);
        const generationId = `${name}/${generation}`;
        cases.push(
          [keys.data(0, 'm'), { family: 'data', generationId }],
          [keys.data(3, 'n'), { family: 'data', generationId }],
          [keys.visibility(1, 5, 9n, 'm'), { family: 'vis', generationId }],
          [keys.receiveState(2, 'm'), { family: 'state', generationId }],
          [keys.groupMember(0, 'g', 9n), { family: 'group', generationId }],
          [encodeKey(['q', name, 'g', generation]), { family: 'other' }],
          [encodeKey(['q', name, 'g', generation, 'data']), { family: 'data', generationId }],
          [encodeKey(['q', name, 'g', generation, 'datum', 0, 'm']), { family: 'other' }],
          [globalKeys.tombstone(name, generation), { family: 'tombstone', generationId }],
        );
      }
      cases.push(
        [queueKeys.meta(name), { family: 'meta' }],
        [queueKeys.sequence(name, 1), { family: 'seq' }],
        [encodeKey(['q', name]), { family: 'other' }],
        [encodeKey(['q', name, 'g']), { family: 'other' }],
        [encodeKey(['q', name, 'meta', 'extra']), { family: 'meta' }],
      );
    }
    fc.assert(
      fc.property(fc.array(fc.nat(cases.length - 1), { minLength: 1, maxLength: 60 }), (order) => {
        for (const i of order) {
          const [key, expected] = cases[i] as (typeof cases)[number];
          expect(classifyStateKey(key), String(decodeKey(key))).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("maps a generation id back to exactly that generation's key range", () => {
    const range = generationRangeOf('a-b/12');
    const inside = new GenerationKeys('a-b', 12).data(0, 'm');
    const otherGeneration = new GenerationKeys('a-b', 1).data(0, 'm');
    const otherQueue = new GenerationKeys('a-bc', 12).data(0, 'm');
    expect(compareBytes(range.gte, inside) <= 0 && compareBytes(inside, range.lt) < 0).toBe(true);
    for (const outside of [otherGeneration, otherQueue])
      expect(compareBytes(range.gte, outside) <= 0 && compareBytes(outside, range.lt) < 0).toBe(false);
  });
});
