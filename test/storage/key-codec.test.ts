import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KeyDecodingError,
  KeyEncodingError,
  compareBytes,
  decodeKey,
  encodeKey,
  isWellFormedKey,
  keySuccessor,
  prefixRange,
  type KeyTuple,
} from '../../src/storage/key-codec.js';
import { compareTuples, normalizeTuple, tupleArb } from './tuple-model.js';

const runs = { numRuns: 1000 };
const sign = (n: number) => Math.sign(n);

function isBytePrefix(prefix: Uint8Array, of: Uint8Array): boolean {
  return prefix.length <= of.length && compareBytes(prefix, of.subarray(0, prefix.length)) === 0;
}

function isTuplePrefix(prefix: KeyTuple, of: KeyTuple): boolean {
  return prefix.length <= of.length && compareTuples(prefix, of.slice(0, prefix.length)) === 0;
}

/** The codec's order property, parameterized by the encoder so a broken one can be shown to fail it. */
function orderProperty(encode: (t: KeyTuple) => Uint8Array) {
  return fc.property(
    tupleArb,
    tupleArb,
    (a, b) => sign(compareBytes(encode(a), encode(b))) === sign(compareTuples(a, b)),
  );
}

/** A plausible but wrong encoder: strings unescaped and unterminated, integers in fixed 8 bytes. */
function naiveEncode(tuple: KeyTuple): Uint8Array {
  const parts: number[] = [];
  for (const e of tuple) {
    if (typeof e === 'string') parts.push(2, ...new TextEncoder().encode(e));
    else if (e instanceof Uint8Array) parts.push(1, ...e);
    else parts.push(3, ...new Uint8Array(new BigUint64Array([BigInt(e)]).buffer).reverse());
  }
  return Uint8Array.from(parts);
}

describe('key codec', () => {
  it('decodes every encoded tuple back to the same tuple (integers normalized)', () => {
    fc.assert(
      fc.property(tupleArb, (t) => {
        expect(decodeKey(encodeKey(t))).toEqual(normalizeTuple(t));
      }),
      runs,
    );
  });

  it('orders encoded tuples bytewise exactly as the reference tuple order', () => {
    fc.assert(orderProperty(encodeKey), runs);
  });

  it('orders tuples that share a prefix exactly as the reference order', () => {
    fc.assert(
      fc.property(tupleArb, tupleArb, tupleArb, (common, a, b) => {
        const x = [...common, ...a];
        const y = [...common, ...b];
        expect(sign(compareBytes(encodeKey(x), encodeKey(y)))).toBe(sign(compareTuples(x, y)));
      }),
      runs,
    );
  });

  it('makes one encoding a byte prefix of another only when the tuple is a prefix', () => {
    fc.assert(
      fc.property(tupleArb, tupleArb, fc.boolean(), (a, b, extend) => {
        const other = extend ? [...a, ...b] : b;
        expect(isBytePrefix(encodeKey(a), encodeKey(other))).toBe(isTuplePrefix(a, other));
      }),
      runs,
    );
  });

  it('prefixRange contains exactly the keys whose tuple starts with the prefix', () => {
    fc.assert(
      fc.property(tupleArb, tupleArb, fc.boolean(), (prefix, rest, extend) => {
        const tuple = extend ? [...prefix, ...rest] : rest;
        const key = encodeKey(tuple);
        const range = prefixRange(prefix);
        const inside = compareBytes(key, range.gte) >= 0 && compareBytes(key, range.lt) < 0;
        expect(inside).toBe(isTuplePrefix(prefix, tuple));
      }),
      runs,
    );
  });

  it('encodes a safe integer identically as a number and as a bigint', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(encodeKey([n])).toEqual(encodeKey([BigInt(n)]));
      }),
      runs,
    );
  });

  it('decodes integers above 2^53-1 as bigints and below as numbers', () => {
    expect(decodeKey(encodeKey([2n ** 53n]))).toEqual([2n ** 53n]);
    expect(decodeKey(encodeKey([2n ** 53n - 1n]))).toEqual([Number.MAX_SAFE_INTEGER]);
    expect(decodeKey(encodeKey([(1n << 64n) - 1n]))).toEqual([(1n << 64n) - 1n]);
  });

  it('escapes embedded zero and one bytes so that "a" < "a\\0" < "a\\0\\0" < "a\\x01" < "ab"', () => {
    const keys = ['a', 'a\0', 'a\0\0', 'a\x01', 'ab'].map((s) => encodeKey([s]));
    for (let i = 1; i < keys.length; i++)
      expect(compareBytes(keys[i - 1] as Uint8Array, keys[i] as Uint8Array)).toBeLessThan(0);
    expect(encodeKey(['a\0'])).toEqual(Uint8Array.from([0x02, 0x61, 0x01, 0x01, 0x00]));
    expect(encodeKey([Uint8Array.of(1, 0)])).toEqual(Uint8Array.from([0x01, 0x01, 0x02, 0x01, 0x01, 0x00]));
    // A string is never a byte prefix of the same string extended by a NUL (with 0x00 0xFF escapes it would be).
    expect(compareBytes(encodeKey(['']), encodeKey(['\0']).subarray(0, 2))).not.toBe(0);
  });

  it('orders strings by code point, where JavaScript string comparison would not', () => {
    // U+FFFF is below U+1F600 as a code point, but above its leading surrogate as UTF-16.
    expect('\uffff' > '\u{1f600}').toBe(true);
    expect(compareBytes(encodeKey(['\uffff']), encodeKey(['\u{1f600}']))).toBeLessThan(0);
  });

  it('keySuccessor is above the key and below every key that extends it', () => {
    fc.assert(
      fc.property(tupleArb, tupleArb, (a, b) => {
        const key = encodeKey(a);
        const next = keySuccessor(key);
        expect(compareBytes(key, next)).toBeLessThan(0);
        if (b.length > 0) expect(compareBytes(next, encodeKey([...a, ...b]))).toBeLessThanOrEqual(0);
      }),
      runs,
    );
  });

  it('isWellFormedKey accepts every encoding', () => {
    fc.assert(
      fc.property(tupleArb, (t) => isWellFormedKey(encodeKey(t))),
      runs,
    );
  });

  it('rejects integers it cannot encode and strings with lone surrogates', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, -1n, 1n << 64n, 'a\ud800', '\udc00b']) {
      expect(() => encodeKey(['ok', bad]), String(bad)).toThrow(KeyEncodingError);
    }
    expect(() => encodeKey([{} as unknown as string])).toThrow(KeyEncodingError);
  });

  it('rejects bytes that are no encoding: unknown tag, missing terminator, cut integer, leading zero, bad UTF-8', () => {
    const broken = [
      [0x03],
      [0x02, 0x61],
      [0x02, 0x61, 0x00, 0xff],
      [0x02, 0x61, 0x01, 0x05, 0x00],
      [0x01, 0x01],
      [0x16, 0x01],
      [0x15, 0x00],
      [0x00],
      [0xff],
    ];
    for (const bytes of broken) {
      const key = Uint8Array.from(bytes);
      expect(() => decodeKey(key), bytes.join(',')).toThrow(KeyDecodingError);
      expect(isWellFormedKey(key), bytes.join(',')).toBe(false);
    }
    expect(() => decodeKey(Uint8Array.from([0x02, 0xc3, 0x28, 0x00]))).toThrow(KeyDecodingError);
  });

  it('the order property detects an encoder that neither escapes nor terminates', () => {
    const result = fc.check(orderProperty(naiveEncode), { numRuns: 1000, seed: 1 });
    expect(result.failed).toBe(true);
  });
});
