import fc from 'fast-check';
import type { KeyElement, KeyTuple } from '../../src/storage/key-codec.js';

/** The reference order of tuples that the codec must reproduce bytewise (see key-codec.ts). */
export function compareTuples(a: KeyTuple, b: KeyTuple): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    const order = compareElements(a[i] as KeyElement, b[i] as KeyElement);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function typeRank(element: KeyElement): number {
  if (element instanceof Uint8Array) return 0;
  if (typeof element === 'string') return 1;
  return 2;
}

function compareElements(a: KeyElement, b: KeyElement): number {
  const rankOrder = typeRank(a) - typeRank(b);
  if (rankOrder !== 0) return rankOrder;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareSequences([...a], [...b]);
  if (typeof a === 'string' && typeof b === 'string') return compareSequences(codePoints(a), codePoints(b));
  const x = BigInt(a as number | bigint);
  const y = BigInt(b as number | bigint);
  return x < y ? -1 : x > y ? 1 : 0;
}

function codePoints(text: string): number[] {
  return [...text].map((c) => c.codePointAt(0) as number);
}

function compareSequences(a: number[], b: number[]): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/** How decodeKey returns an element: integers as numbers when safe, bigints otherwise. */
export function normalizeTuple(tuple: KeyTuple): KeyElement[] {
  return tuple.map((e) => {
    if (typeof e === 'bigint' && e <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(e);
    return e;
  });
}

/** Bytes biased towards the values the codec treats specially (0x00 escapes, 0xff). */
const byteValue = fc.oneof(fc.constantFrom(0x00, 0x01, 0x02, 0xfe, 0xff), fc.integer({ min: 0, max: 255 }));
export const bytesArb = fc.array(byteValue, { maxLength: 6 }).map((a) => Uint8Array.from(a));
/** Strings biased towards NULs, ASCII, BMP characters above the surrogates, and astral characters. */
export const stringArb = fc.oneof(
  fc.string({
    unit: fc.constantFrom('\u0000', 'a', 'b', '\u00ff', '\uffff', '\u{10000}', '\u{1f600}', '\ue000'),
    maxLength: 5,
  }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
export const integerArb = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.maxSafeNat(),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  fc.constantFrom(0, 255, 256, 65_535, 65_536, Number.MAX_SAFE_INTEGER, 2n ** 53n, (1n << 64n) - 1n),
);
export const elementArb: fc.Arbitrary<KeyElement> = fc.oneof(bytesArb, stringArb, integerArb);
export const tupleArb = fc.array(elementArb, { maxLength: 4 });
