/**
 * The physical layout of the MVCC keyspace in the engine.
 *
 * A version of the logical key K (an encoded tuple) committed at T lives at
 *
 *     K ‖ 0x00 ‖ BE64(~T)        (~T = 2^64 - 1 - T, so newer versions sort first)
 *
 * and its value is 0x01 ‖ bytes, or the single byte 0x00 for a deletion marker.
 *
 * Why the 0x00 separator: a tuple encoding may be a byte prefix of another (("q") of ("q", 5)).
 * Without a separator, the version suffix of the shorter key would compare against the next
 * element of the longer one, and one key's versions could land between another's. Every tuple
 * element starts with a tag ≥ 0x01, so `K ‖ 0x00 ‖ …` sorts before every longer key that starts
 * with K: physical order is (logical key ascending, commitTsUs descending), exactly.
 *
 * Rows that start with 0x00 are not versions: that first byte (never a tuple tag) marks the
 * system rows of system-keys.ts, which therefore sort before all user keys.
 */
import { assert } from '../base/assert.js';
import { readUint32BE, writeUint32BE } from '../base/big-endian.js';
import { slabArray } from './byte-slab.js';
import { compareBytes, elementEnd } from './key-codec.js';

export const versionSuffixBytes = 9;
const separator = 0x00;
const markerValue = 0x01;
const markerDeletion = 0x00;
const u32Max = 0xffff_ffff;
const twoPow32 = 0x1_0000_0000;

/** The lowest physical key of user data: every user key starts with a tuple tag ≥ 0x01. */
export const userSpaceStart = Uint8Array.of(0x01);

export function encodeVersionKey(key: Uint8Array, commitTsUs: number): Uint8Array {
  assert(
    Number.isSafeInteger(commitTsUs) && commitTsUs >= 0,
    () => `commitTsUs must be a non-negative safe integer, got ${commitTsUs}`,
  );
  const physical = slabArray(key.length + versionSuffixBytes);
  physical.set(key);
  physical[key.length] = separator;
  writeUint32BE(physical, key.length + 1, u32Max - Math.floor(commitTsUs / twoPow32));
  writeUint32BE(physical, key.length + 5, u32Max - (commitTsUs % twoPow32));
  return physical;
}

/** The first physical key of K's versions (its newest version sorts at or after it). */
export function versionsStart(key: Uint8Array): Uint8Array {
  const start = slabArray(key.length + 1);
  start.set(key);
  start[key.length] = separator;
  return start;
}

/** Just past the last physical key of K's versions (and before any longer key that starts with K). */
export function versionsEnd(key: Uint8Array): Uint8Array {
  const end = slabArray(key.length + 1);
  end.set(key);
  end[key.length] = separator + 1;
  return end;
}

export function logicalKeyOf(physical: Uint8Array): Uint8Array {
  assert(
    physical.length > versionSuffixBytes && physical[physical.length - versionSuffixBytes] === separator,
    'not a version key',
  );
  return physical.subarray(0, physical.length - versionSuffixBytes);
}

export function commitTsOf(physical: Uint8Array): number {
  const offset = physical.length - 8;
  return (u32Max - readUint32BE(physical, offset)) * twoPow32 + (u32Max - readUint32BE(physical, offset + 4));
}

export function encodeVersionValue(value: Uint8Array | undefined): Uint8Array {
  if (value === undefined) {
    const marker = slabArray(1);
    marker[0] = markerDeletion;
    return marker;
  }
  const stored = slabArray(value.length + 1);
  stored[0] = markerValue;
  stored.set(value, 1);
  return stored;
}

/** The value of a stored version, or undefined for a deletion marker. */
export function decodeVersionValue(stored: Uint8Array): Uint8Array | undefined {
  const marker = stored[0];
  assert(
    marker === markerValue || marker === markerDeletion,
    'a version value must start with a value or deletion marker',
  );
  return marker === markerValue ? stored.subarray(1) : undefined;
}

export function isDeletionMarker(stored: Uint8Array): boolean {
  return stored[0] === markerDeletion;
}

/**
 * Physical bounds that contain every version of every logical key in [gte, lt). They may contain
 * a few more (versions of a key just below `gte`), so a scan still filters by logical key.
 *
 * Keys are well-formed tuples (writes are checked). A version K ‖ 0x00 ‖ X of a key K < lt can
 * reach or pass `lt` only when K is a proper prefix of `lt` and `lt` continues with 0x00 right
 * after it (as `keySuccessor(K)` does); then K ‖ 0x00 ‖ FF×8 ‖ 0x00 bounds all of K's versions.
 * The upper bound is `lt` or the largest such bound; for every other `lt` it is `lt` itself, so a
 * reverse scan starts right at the end of its range.
 */
export function physicalBounds(range: { readonly gte: Uint8Array; readonly lt: Uint8Array }): {
  gte: Uint8Array;
  lt: Uint8Array;
} {
  const gte = range.gte.length === 0 || (range.gte[0] as number) < 0x01 ? userSpaceStart : range.gte;
  let lt = range.lt;
  for (
    let offset = elementEnd(range.lt, 0);
    offset > 0 && offset < range.lt.length;
    offset = elementEnd(range.lt, offset)
  ) {
    if (range.lt[offset] !== separator) continue;
    const bound = new Uint8Array(offset + 10);
    bound.set(range.lt.subarray(0, offset));
    bound.fill(0xff, offset + 1, offset + 9);
    if (compareBytes(bound, lt) > 0) lt = bound;
  }
  return { gte, lt };
}
