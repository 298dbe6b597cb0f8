import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GenerationKeys,
  MessageRowKeyParser,
  parseMessageRowKey,
  parseMessageRowKeyUnder,
  queueKeys,
  globalKeys,
  type GenerationFamily,
  type MessageRowKey,
} from '../../src/queue/layout/key-layout.js';
import { decodeKey, encodeKey, prefixRange, type KeyElement } from '../../src/storage/key-codec.js';

const nameArb = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/), fc.constant('orders.fifo'));
const idArb = fc.oneof(fc.uuid(), fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }));
const smallArb = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.maxSafeNat());
const orderArb = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

/** A message row key decoded the plain way: the whole tuple, then its positions. */
function referenceParse(key: Uint8Array): MessageRowKey | undefined {
  const [root, queueName, g, generation, family, partition, a, b, c] = decodeKey(key) as (KeyElement | undefined)[];
  if (root !== 'q' || typeof queueName !== 'string' || g !== 'g') return undefined;
  if (typeof generation !== 'number' || typeof partition !== 'number') return undefined;
  const place = { queueName, generation, partition };
  switch (family) {
    case 'vis':
      if (typeof a !== 'number' || (typeof b !== 'number' && typeof b !== 'bigint') || typeof c !== 'string')
        return undefined;
      return { ...place, family, visibleAtMs: a, order: b, messageId: c };
    case 'data':
    case 'state':
      return typeof a === 'string' ? { ...place, family, messageId: a } : undefined;
    case 'age':
      return typeof a === 'number' && typeof b === 'string'
        ? { ...place, family, retentionStartMs: a, messageId: b }
        : undefined;
    case 'group':
      return typeof a === 'string' && (typeof b === 'number' || typeof b === 'bigint')
        ? { ...place, family, groupId: a, sequence: BigInt(b) }
        : undefined;
    default:
      return undefined;
  }
}

describe('queue key layout', () => {
  it('builds every generation row key as the encoding of its tuple', () => {
    fc.assert(
      fc.property(
        nameArb,
        smallArb,
        smallArb,
        smallArb,
        orderArb,
        idArb,
        idArb,
        (name, gen, part, ms, order, id, other) => {
          const keys = new GenerationKeys(name, gen);
          const root = ['q', name, 'g', gen];
          expect(keys.data(part, id)).toEqual(encodeKey([...root, 'data', part, id]));
          expect(keys.receiveState(part, id)).toEqual(encodeKey([...root, 'state', part, id]));
          expect(keys.visibility(part, ms, order, id)).toEqual(encodeKey([...root, 'vis', part, ms, order, id]));
          expect(keys.age(part, ms, id)).toEqual(encodeKey([...root, 'age', part, ms, id]));
          expect(keys.groupMember(part, id, order)).toEqual(encodeKey([...root, 'group', part, id, order]));
          expect(keys.dedup(part, '', id)).toEqual(encodeKey([...root, 'dedup', part, 'queue', '', id]));
          expect(keys.dedup(part, other, id)).toEqual(
            encodeKey([...root, 'dedup', part, other === '' ? 'queue' : 'group', other, id]),
          );
          expect(keys.receiveAttempt(id)).toEqual(encodeKey([...root, 'attempt', id]));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('builds every generation range as before: prefixes, and the visibility and age windows', () => {
    fc.assert(
      fc.property(
        nameArb,
        smallArb,
        smallArb,
        fc.nat(1e12),
        fc.nat(1e12),
        idArb,
        (name, gen, part, nowMs, fromMs, id) => {
          const keys = new GenerationKeys(name, gen);
          const root = ['q', name, 'g', gen];
          expect(keys.range()).toEqual(prefixRange(root));
          for (const family of ['data', 'state', 'vis', 'age', 'group', 'dedup', 'attempt'] as GenerationFamily[])
            expect(keys.familyRange(family)).toEqual(prefixRange([...root, family]));
          expect(keys.receiveStatePrefix(part)).toEqual(prefixRange([...root, 'state', part]));
          expect(keys.visibilityPrefix(part)).toEqual(prefixRange([...root, 'vis', part]));
          expect(keys.agePrefix(part)).toEqual(prefixRange([...root, 'age', part]));
          expect(keys.groupPrefix(part)).toEqual(prefixRange([...root, 'group', part]));
          expect(keys.groupRange(part, id)).toEqual(prefixRange([...root, 'group', part, id]));
          expect(keys.dedupPrefix(part)).toEqual(prefixRange([...root, 'dedup', part]));
          expect(keys.attemptPrefix()).toEqual(prefixRange([...root, 'attempt']));
          expect(keys.visibleRange(part, nowMs, fromMs)).toEqual({
            gte: fromMs > 0 ? encodeKey([...root, 'vis', part, fromMs]) : prefixRange([...root, 'vis', part]).gte,
            lt: encodeKey([...root, 'vis', part, nowMs + 1]),
          });
          expect(keys.futureRange(part, nowMs)).toEqual({
            gte: encodeKey([...root, 'vis', part, nowMs + 1]),
            lt: prefixRange([...root, 'vis', part]).lt,
          });
          expect(keys.ageRangeBefore(part, nowMs)).toEqual({
            gte: prefixRange([...root, 'age', part]).gte,
            lt: encodeKey([...root, 'age', part, nowMs]),
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('parses every message row key as decoding the whole tuple does, and under its known prefix', () => {
    fc.assert(
      fc.property(nameArb, smallArb, smallArb, smallArb, orderArb, idArb, (name, gen, part, ms, order, id) => {
        const keys = new GenerationKeys(name, gen);
        const place = { queueName: name, generation: gen, partition: part };
        const rows: Array<[GenerationFamily, Uint8Array]> = [
          ['data', keys.data(part, id)],
          ['state', keys.receiveState(part, id)],
          ['vis', keys.visibility(part, ms, order, id)],
          ['age', keys.age(part, ms, id)],
          ['group', keys.groupMember(part, id, order)],
        ];
        for (const [family, key] of rows) {
          const parsed = parseMessageRowKey(key);
          expect(parsed).toBeDefined();
          expect(parsed).toEqual(referenceParse(key));
          expect(parsed?.family).toBe(family);
          const prefixLength = keys.familyRange(family).gte.length + encodeKey([part]).length;
          expect(parseMessageRowKeyUnder(key, place, family, prefixLength)).toEqual(parsed);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('parses a run of keys, remembering their prefixes, as parsing each alone does', () => {
    const rowKeyArb = fc
      .tuple(
        fc.constantFrom('orders', 'orders2', 'jobs.fifo'),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom('data', 'state', 'vis', 'age', 'group', 'dedup', 'meta'),
        smallArb,
        orderArb,
        idArb,
      )
      .map(([name, gen, part, family, ms, order, id]) => {
        const keys = new GenerationKeys(name, gen);
        if (family === 'data') return keys.data(part, id);
        if (family === 'state') return keys.receiveState(part, id);
        if (family === 'vis') return keys.visibility(part, ms, order, id);
        if (family === 'age') return keys.age(part, ms, id);
        if (family === 'group') return keys.groupMember(part, id, order);
        if (family === 'dedup') return keys.dedup(part, id, 'd');
        return queueKeys.meta(name);
      });
    fc.assert(
      fc.property(fc.array(rowKeyArb, { maxLength: 60 }), (keys) => {
        const parser = new MessageRowKeyParser();
        for (const key of keys) expect(parser.parse(key)).toEqual(parseMessageRowKey(key));
      }),
      { numRuns: 500 },
    );
  });

  it('parses keys that are no message row as undefined, as decoding the whole tuple does', () => {
    const keys = new GenerationKeys('orders', 3);
    const others = [
      keys.dedup(0, 'g', 'd'),
      keys.receiveAttempt('a'),
      queueKeys.meta('orders'),
      queueKeys.generation('orders'),
      queueKeys.sequence('orders', 1),
      globalKeys.queueIndex('orders'),
      globalKeys.tombstone('orders', 3),
      encodeKey(['q', 'orders', 'g', 3, 'visx', 0, 1, 2, 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'vis', 0, 1, 2]),
      encodeKey(['q', 'orders', 'g', 3, 'vis', 0, 'later', 2, 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'vis', 0, 2n ** 60n, 2, 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'data', 'p', 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'data', 0, 5]),
      encodeKey(['q', 'orders', 'g', 3, 'data', 0]),
      encodeKey(['q', 'orders', 'g', 3, 'age', 0, 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'group', 0, 'grp']),
      encodeKey(['q', 'orders', 'g', 2n ** 60n, 'data', 0, 'm']),
      encodeKey(['q', 'orders', 'g', 3, 'data', 2n ** 60n, 'm']),
      encodeKey(['q', 'orders', 'h', 3, 'data', 0, 'm']),
      encodeKey(['q', Uint8Array.of(1), 'g', 3, 'data', 0, 'm']),
      encodeKey(['qq', 'orders', 'g', 3, 'data', 0, 'm']),
      encodeKey(['q']),
    ];
    for (const key of others) {
      expect(referenceParse(key), String(decodeKey(key))).toBeUndefined();
      expect(parseMessageRowKey(key), String(decodeKey(key))).toBeUndefined();
      // Also by a parser that knows the prefixes of this queue's rows.
      const parser = new MessageRowKeyParser();
      for (const family of ['data', 'vis', 'age', 'group'] as const)
        parser.parse(encodeKey(['q', 'orders', 'g', 3, family, 0, ...(family === 'data' ? ['m'] : [1, 'm'])]));
      expect(parser.parse(key), String(decodeKey(key))).toBeUndefined();
    }
  });
});
