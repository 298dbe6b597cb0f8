/** Random version histories of a few keys, as the physical rows collection reads (tests of version-gc.ts). */
import fc from 'fast-check';
import { encodeKey } from '../../src/storage/key-codec.js';
import { encodeVersionKey, encodeVersionValue } from '../../src/storage/version-key.js';

export interface Version {
  readonly key: number;
  readonly commitTsUs: number;
  readonly isMarker: boolean;
}

export const versionsArb = fc
  .array(
    fc.record({
      key: fc.integer({ min: 0, max: 4 }),
      commitTsUs: fc.integer({ min: 1, max: 40 }),
      isMarker: fc.boolean(),
    }),
    { maxLength: 30 },
  )
  // One version per key and timestamp, in physical order: key ascending, newest first.
  .map((versions) =>
    [...new Map(versions.map((v) => [`${v.key}/${v.commitTsUs}`, v])).values()].sort(
      (a, b) => a.key - b.key || b.commitTsUs - a.commitTsUs,
    ),
  );

export function physicalRows(versions: readonly Version[]) {
  return versions.map((v) => ({
    key: encodeVersionKey(encodeKey(['k', v.key]), v.commitTsUs),
    value: encodeVersionValue(v.isMarker ? undefined : Uint8Array.of(1)),
  }));
}
