import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/storage/byte-writer.js';
import {
  KeyEncodingError,
  KeyPrefix,
  KeyReader,
  appendKey,
  decodeKey,
  decodeKeyFrom,
  encodeKey,
  prefixRange,
  type KeyElement,
  type KeyTuple,
} from '../../src/storage/key-codec.js';
import { integerArb, normalizeTuple, tupleArb } from './tuple-model.js';

/**
 * The layout of key-codec.ts written the plain way: TextEncoder for strings, BigInt for every
 * integer, a byte at a time. The codec's fast paths must produce exactly these bytes (stored keys
 * and replicas depend on them).
 */
function referenceEncode(tuple: KeyTuple): Uint8Array {
  const out: number[] = [];
  const escaped = (raw: Uint8Array) => {
    for (const byte of raw) {
      if (byte === 0x00) out.push(0x01, 0x01);
      else if (byte === 0x01) out.push(0x01, 0x02);
      else out.push(byte);
    }
    out.push(0x00);
  };
  tuple.forEach((element, index) => {
    if (typeof element === 'string') {
      if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(element))
        throw new KeyEncodingError(index, 'lone surrogate');
      out.push(0x02);
      escaped(new TextEncoder().encode(element));
    } else if (element instanceof Uint8Array) {
      out.push(0x01);
      escaped(element);
    } else {
      const value = BigInt(element);
      const bytes: number[] = [];
      for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
      out.push(0x14 + bytes.length, ...bytes);
    }
  });
  return Uint8Array.from(out);
}

/** Integers of every encoded length 0..8 bytes, as numbers where safe and as bigints. */
const integerOfEveryLength = fc.integer({ min: 0, max: 8 }).chain((lengthBytes) => {
  const min = lengthBytes === 0 ? 0n : 1n << BigInt(8 * (lengthBytes - 1));
  const max = (1n << BigInt(8 * lengthBytes)) - 1n;
  const big = fc.bigInt({ min, max });
  if (min > BigInt(Number.MAX_SAFE_INTEGER)) return big;
  const safeMax = max > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(max);
  return fc.oneof(big, fc.integer({ min: Number(min), max: safeMax }));
});
const asciiWithEscapes = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u0000', '\u0001', '\u0002', '\u007f'),
    fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 12,
});
/** UUIDs and queue names: the strings the queue layer puts in keys. */
const plainAscii = fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/));
const anyUnicode = fc.string({ unit: 'binary', maxLength: 10 });
const mixedUnicode = fc.string({
  unit: fc.constantFrom(
    'a',
    '\u0000',
    '\u0001',
    '\u007f',
    '\u0080',
    '\u07ff',
    '\u0800',
    '\ufeff',
    '\uffff',
    '\u{10000}',
    '\u{1f600}',
    '\u{10ffff}',
  ),
  maxLength: 8,
});
/** Strings around the decoder's short-string bound (128 bytes), ASCII or with one non-ASCII unit. */
const boundaryLength = fc
  .tuple(fc.integer({ min: 125, max: 131 }), fc.constantFrom('x', 'é', '\u0001'))
  .map(([length, last]) => 'a'.repeat(length - 1) + last);
const elementArb: fc.Arbitrary<KeyElement> = fc.oneof(
  plainAscii,
  asciiWithEscapes,
  anyUnicode,
  mixedUnicode,
  boundaryLength,
  integerOfEveryLength,
  integerArb,
  fc.uint8Array({ maxLength: 8 }),
  fc.uint8Array({ maxLength: 300 }),
);
const wideTupleArb = fc.oneof(fc.array(elementArb, { maxLength: 7 }), tupleArb);
const loneSurrogate = fc
  .tuple(
    fc.string({ maxLength: 3 }),
    fc.constantFrom(
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\udc00\ud800',
      '\udc00\udc00',
      '\udfff\udc00\ude00',
      '\ud800\ud800\udc00',
    ),
    fc.string({ maxLength: 3 }),
  )
  .map(([before, lone, after]) => before + lone + after)
  .filter((text) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text));

const runs = { numRuns: 3000 };

function errorOf(encode: () => unknown): unknown {
  try {
    encode();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('key codec against a plain reference encoder', () => {
  it('encodes every tuple to exactly the reference bytes', () => {
    fc.assert(
      fc.property(wideTupleArb, (tuple) => {
        expect(encodeKey(tuple)).toEqual(referenceEncode(tuple));
      }),
      runs,
    );
  });

  it('encodes every integer length, as a number and as a bigint, to the reference bytes', () => {
    for (let lengthBytes = 0; lengthBytes <= 8; lengthBytes++) {
      const low = lengthBytes === 0 ? 0n : 1n << BigInt(8 * (lengthBytes - 1));
      const high = (1n << BigInt(8 * lengthBytes)) - 1n;
      for (const value of [low, high, (low + high) / 2n]) {
        expect(encodeKey([value]), String(value)).toEqual(referenceEncode([value]));
        expect(encodeKey([value])[0]).toBe(0x14 + lengthBytes);
        if (value <= BigInt(Number.MAX_SAFE_INTEGER)) expect(encodeKey([Number(value)])).toEqual(encodeKey([value]));
      }
    }
    expect(encodeKey([Number.MAX_SAFE_INTEGER])).toEqual(referenceEncode([Number.MAX_SAFE_INTEGER]));
    expect(encodeKey([2 ** 32, 2 ** 32 - 1, 2 ** 31])).toEqual(referenceEncode([2 ** 32, 2 ** 32 - 1, 2 ** 31]));
  });

  it('gives every key bytes of its own: later keys, and writes into one key, leave the others as they were', () => {
    const tuples = Array.from({ length: 2_000 }, (_, i) => [
      'q',
      `queue-${i}`,
      'g',
      i,
      'data',
      i % 7,
      `id-${i}`.repeat(1 + (i % 9)),
    ]);
    const keys = tuples.map((tuple) => encodeKey(tuple));
    const large = encodeKey([new Uint8Array(2_000).fill(7)]);
    (keys[0] as Uint8Array).fill(0xee);
    tuples.slice(1).forEach((tuple, i) => expect(keys[i + 1]).toEqual(referenceEncode(tuple)));
    expect(large).toEqual(referenceEncode([new Uint8Array(2_000).fill(7)]));
  });

  it('rejects a lone surrogate like the reference, naming the same element, and writes nothing', () => {
    fc.assert(
      fc.property(wideTupleArb, loneSurrogate, wideTupleArb, (before, bad, after) => {
        const tuple = [...before, bad, ...after];
        const expected = errorOf(() => referenceEncode(tuple));
        const actual = errorOf(() => encodeKey(tuple));
        expect(actual).toBeInstanceOf(KeyEncodingError);
        expect((actual as KeyEncodingError).elementIndex).toBe((expected as KeyEncodingError).elementIndex);
        const writer = new ByteWriter(16);
        writer.byte(0x07);
        expect(() => appendKey(writer, [bad])).toThrow(KeyEncodingError);
        expect(writer.finish()).toEqual(Uint8Array.of(0x07));
      }),
      { numRuns: 500 },
    );
  });

  it('appends to a writer that already holds bytes and has to grow, as the reference', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), wideTupleArb, (head, tuple) => {
        const writer = new ByteWriter(16);
        writer.bytes(head);
        appendKey(writer, tuple);
        const expected = new Uint8Array([...head, ...referenceEncode(tuple)]);
        expect(writer.finish()).toEqual(expected);
      }),
      runs,
    );
  });

  it('KeyPrefix builds the same keys and ranges as the whole tuple, and counts its elements in errors', () => {
    fc.assert(
      fc.property(wideTupleArb, wideTupleArb, wideTupleArb, (prefix, middle, suffix) => {
        const extended = KeyPrefix.of(prefix).extend(middle);
        expect(extended.bytes).toEqual(referenceEncode([...prefix, ...middle]));
        expect(extended.elementCount).toBe(prefix.length + middle.length);
        expect(extended.key(suffix)).toEqual(referenceEncode([...prefix, ...middle, ...suffix]));
        expect(extended.range(suffix)).toEqual(prefixRange([...prefix, ...middle, ...suffix]));
        const error = errorOf(() => extended.key([...suffix, '\ud800']));
        expect((error as KeyEncodingError).elementIndex).toBe(prefix.length + middle.length + suffix.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('prefixRange is the encoded prefix and that prefix followed by 0xff', () => {
    fc.assert(
      fc.property(wideTupleArb, (prefix) => {
        const encoded = referenceEncode(prefix);
        expect(prefixRange(prefix)).toEqual({ gte: encoded, lt: new Uint8Array([...encoded, 0xff]) });
      }),
      runs,
    );
  });

  it('decodes every encoding back to its tuple, whole and from any element boundary', () => {
    fc.assert(
      fc.property(wideTupleArb, wideTupleArb, (head, tail) => {
        const key = encodeKey([...head, ...tail]);
        expect(decodeKey(key)).toEqual(normalizeTuple([...head, ...tail]));
        expect(decodeKeyFrom(key, encodeKey(head).length)).toEqual(normalizeTuple(tail));
      }),
      runs,
    );
  });

  it('keeps a leading U+FEFF when decoding (a UTF-8 decoder drops it by default)', () => {
    expect(decodeKey(encodeKey(['\ufeffa', '\ufeff']))).toEqual(['\ufeffa', '\ufeff']);
  });

  it('KeyReader reads each element as its type, and leaves an element of another type in place', () => {
    fc.assert(
      fc.property(wideTupleArb, (tuple) => {
        const reader = new KeyReader(encodeKey(tuple));
        for (const element of normalizeTuple(tuple)) {
          if (typeof element === 'string') {
            expect(reader.integer()).toBeUndefined();
            expect(reader.string()).toBe(element);
          } else if (typeof element === 'number' || typeof element === 'bigint') {
            expect(reader.string()).toBeUndefined();
            expect(reader.integer()).toBe(element);
          } else {
            expect(reader.string()).toBeUndefined();
            expect(reader.integer()).toBeUndefined();
            expect(reader.skipIf(encodeKey([element]))).toBe(true);
          }
        }
        expect(reader.isAtEnd).toBe(true);
      }),
      runs,
    );
  });

  it('KeyReader.skipIf matches a whole encoded element only', () => {
    const reader = new KeyReader(encodeKey(['visx', 'vis', 3]));
    expect(reader.skipIf(encodeKey(['vis']))).toBe(false);
    expect(reader.string()).toBe('visx');
    expect(reader.skipIf(encodeKey(['vis']))).toBe(true);
    expect(reader.skipIf(encodeKey([3, 4]))).toBe(false);
    expect(reader.integer()).toBe(3);
    expect(reader.isAtEnd).toBe(true);
  });
});
