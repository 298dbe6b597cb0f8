/**
 * The engine side of MvccStore.scanAt (mvcc-store.ts): a reverse scan over the range's versions,
 * and a forward scan that starts past the dead run (keys whose newest version is a deletion
 * marker) the dead-prefix cache remembers for the range's start, and remembers the run it finds.
 * It stands apart from the store because it is where the cache (dead-prefix-cache.ts) meets the
 * scans over versions (version-scan.ts); the store only checks the read and its timestamp.
 */
import type { DeadPrefixCache } from './dead-prefix-cache.js';
import type { Engine } from './engine.js';
import type { KeyRange, KeyValue } from './txn.js';
import { scanForward, scanReverse, type DeadRun } from './version-scan.js';
import { physicalBounds } from './version-key.js';

export async function scanReverseAt(engine: Engine, range: KeyRange, ts: number, limit: number): Promise<KeyValue[]> {
  const iterator = engine.iterator({ ...physicalBounds(range), reverse: true });
  try {
    return await scanReverse(iterator, range, ts, limit);
  } finally {
    await iterator.close();
  }
}

/**
 * A forward scan that starts past the known dead run of its range, and remembers the run it finds.
 * `lastCommitTs` is the store's now: only reads at or below it may use the cache.
 */
export async function scanForwardAt(
  store: { readonly engine: Engine; readonly deadPrefixes: DeadPrefixCache; readonly lastCommitTs: number },
  range: KeyRange,
  ts: number,
  limit: number,
): Promise<KeyValue[]> {
  const { engine, deadPrefixes } = store;
  // Only reads at or below lastCommitTs may use the cache: see dead-prefix-cache.ts.
  const known = ts <= store.lastCommitTs ? deadPrefixes.lookup(range.gte, ts) : undefined;
  const start = known === undefined ? range.gte : known.end;
  const pending = deadPrefixes.beginScan(range.gte);
  let found: DeadRun | undefined;
  try {
    const iterator = engine.iterator(physicalBounds({ gte: start, lt: range.lt }));
    try {
      const scan = await scanForward(iterator, { gte: start, lt: range.lt }, ts, limit);
      found = scan.deadRun;
      if (known !== undefined)
        found = {
          ...found,
          deadKeys: Number.MAX_SAFE_INTEGER,
          newestMarkerTs: Math.max(found.newestMarkerTs, known.newestMarkerTs),
        };
      return scan.rows;
    } finally {
      await iterator.close();
    }
  } finally {
    deadPrefixes.finishScan(pending, found);
  }
}
