/**
 * The newest version of many keys at once, for validating a batch of txns: the newest-version
 * cache answers the keys it knows, the absent-key set those known to have none, and the rest are
 * looked up in key order, split over a few iterators that seek concurrently, since each seek is a
 * round trip to the engine.
 */
import type { AbsentKeySet } from './absent-key-set.js';
import type { Engine } from './engine.js';
import { bytesEqual, compareBytes } from './key-codec.js';
import { keyHashOf } from './key-hash.js';
import { noVersionTs, type NewestVersionCache } from './newest-version-cache.js';
import {
  commitTsOf,
  decodeVersionValue,
  isDeletionMarker,
  logicalKeyOf,
  userSpaceStart,
  versionSuffixBytes,
  versionsStart,
} from './version-key.js';

/** The newest version of a key: its commit timestamp, and whether it is a value or a deletion marker. */
export interface LatestVersion {
  readonly commitTsUs: number;
  readonly isValue: boolean;
}

export interface LatestVersionSources {
  readonly engine: Engine;
  readonly newestVersions: NewestVersionCache;
  readonly absentKeys: AbsentKeySet;
  /** Batches written to the engine so far: a lookup teaches the cache only if none landed while it read. */
  readonly writeCount: () => number;
}

/** Iterators one lookup seeks with at once (LevelDB's reads run on libuv's 4 threads). */
const latestLookupIteratorsMax = 4;

export async function latestVersionsOfKeys(
  sources: LatestVersionSources,
  keys: readonly Uint8Array[],
  /** keyHashOf of each key, when the caller has them (the apply step does). */
  hashes?: readonly number[],
): Promise<Array<LatestVersion | undefined>> {
  const results: Array<LatestVersion | undefined> = new Array<LatestVersion | undefined>(keys.length).fill(undefined);
  const misses: number[] = [];
  keys.forEach((key, i) => {
    const hash = hashes?.[i] ?? keyHashOf(key);
    const newest = sources.newestVersions.versionOf(key, hash);
    if (newest !== undefined) {
      if (newest.commitTsUs !== noVersionTs) results[i] = { commitTsUs: newest.commitTsUs, isValue: newest.isValue };
    } else if (!sources.absentKeys.has(key, hash)) misses.push(i);
  });
  const order = misses.sort((a, b) => compareBytes(keys[a] as Uint8Array, keys[b] as Uint8Array));
  const perIterator = Math.max(16, Math.ceil(order.length / latestLookupIteratorsMax));
  const chunks: number[][] = [];
  for (let start = 0; start < order.length; start += perIterator) chunks.push(order.slice(start, start + perIterator));
  await Promise.all(chunks.map((chunk) => lookUpLatest(sources, keys, chunk, results)));
  return results;
}

async function lookUpLatest(
  sources: LatestVersionSources,
  keys: readonly Uint8Array[],
  indexes: readonly number[],
  results: Array<LatestVersion | undefined>,
): Promise<void> {
  const writesBefore = sources.writeCount();
  const iterator = sources.engine.iterator({ gte: userSpaceStart });
  try {
    for (const i of indexes) {
      const key = keys[i] as Uint8Array;
      iterator.seek(versionsStart(key));
      const [newest] = await iterator.next(1);
      if (
        newest !== undefined &&
        newest.key.length === key.length + versionSuffixBytes &&
        bytesEqual(logicalKeyOf(newest.key), key)
      ) {
        results[i] = { commitTsUs: commitTsOf(newest.key), isValue: !isDeletionMarker(newest.value) };
        // Still the newest only if nothing was written since the iterator was opened.
        if (sources.writeCount() === writesBefore)
          sources.newestVersions.remember(key, commitTsOf(newest.key), decodeVersionValue(newest.value));
      }
    }
  } finally {
    await iterator.close();
  }
}
