/**
 * Point reads of several keys that lie close together, through one iterator: the engine side of
 * MvccStore.getManyAt. Every read through an iterator costs a native round trip, some 40 µs of
 * the main thread here whatever it reads (docs/BENCHMARKS.md, "what a point read costs by its
 * path"), so ten reads of ten neighbouring keys cost ten round trips one by one and one together.
 * Neighbours are common: a receive reads the data rows of the messages at the head of a queue,
 * which were sent one after the other and whose ids, minted in order, key them side by side.
 *
 * The pass walks every version between the first key and the last, so keys far apart would make
 * it read whatever lies between: it stops after `entriesMax` entries, and the keys it did not
 * reach are left for the caller to read one by one.
 */
import type { Engine } from './engine.js';
import { compareBytes } from './key-codec.js';
import { commitTsOf, decodeVersionValue, logicalKeyOf, versionsEnd, versionsStart } from './version-key.js';
import { noVersionTs } from './newest-version-cache.js';

/** A key's read at `ts`: the newest version at or below it (noVersionTs: none) and its value (undefined: none, or a marker). */
export interface PassRead {
  readonly foundTs: number;
  readonly value: Uint8Array | undefined;
}

/**
 * Reads `keys` (sorted, no two equal) at `ts` in one forward pass; the answer has one place per
 * key, undefined where the pass stopped before it could tell.
 */
export async function readInOnePass(
  engine: Engine,
  keys: readonly Uint8Array[],
  ts: number,
  entriesMax: number,
): Promise<Array<PassRead | undefined>> {
  const reads: Array<PassRead | undefined> = new Array<PassRead | undefined>(keys.length).fill(undefined);
  if (keys.length === 0) return reads;
  const none: PassRead = { foundTs: noVersionTs, value: undefined };
  const iterator = engine.iterator({
    gte: versionsStart(keys[0] as Uint8Array),
    lt: versionsEnd(keys[keys.length - 1] as Uint8Array),
    isBulk: true,
  });
  // Keys before `at` are settled; the key at `at` is the one the pass is in or coming to.
  let at = 0;
  let examined = 0;
  let isRangeEnd = false;
  try {
    const isSettled = (): boolean => at === keys.length || (at === keys.length - 1 && reads[at] !== undefined);
    while (!isSettled() && examined < entriesMax) {
      const page = await iterator.next(Math.min(entriesMax - examined, (keys.length - at) * 2 + 4));
      if (page.length === 0) {
        isRangeEnd = true;
        break;
      }
      for (const entry of page) {
        examined++;
        const logical = logicalKeyOf(entry.key);
        let order = compareBytes(keys[at] as Uint8Array, logical);
        // Passed by: a key whose versions the pass did not meet has none at or below ts.
        while (order < 0) {
          reads[at] ??= none;
          at++;
          if (at === keys.length) break;
          order = compareBytes(keys[at] as Uint8Array, logical);
        }
        if (at === keys.length) break;
        // Versions come newest first: the first at or below ts is the one a read at ts sees.
        if (order === 0 && reads[at] === undefined) {
          const commitTs = commitTsOf(entry.key);
          if (commitTs <= ts) reads[at] = { foundTs: commitTs, value: decodeVersionValue(entry.value) };
        }
      }
    }
  } finally {
    await iterator.close();
  }
  // The range ended: no key left has a version the pass did not meet.
  if (isRangeEnd) for (let i = at; i < keys.length; i++) reads[i] ??= none;
  return reads;
}
