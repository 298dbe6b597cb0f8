/**
 * The two scans of the MVCC keyspace: the newest version at or below a timestamp of each key of a
 * range, forward (versions of a key arrive newest first) or reverse (oldest first). The forward
 * scan also reports the run of dead keys at the start of the range (dead-prefix-cache.ts).
 */
import type { EngineEntry, EngineIterator } from './engine.js';
import { bytesEqual, compareBytes } from './key-codec.js';
import type { KeyRange, KeyValue } from './txn.js';
import { commitTsOf, decodeVersionValue, isDeletionMarker, logicalKeyOf } from './version-key.js';

/** The keys at the start of a scanned range whose newest version is a deletion marker. */
export interface DeadRun {
  readonly end: Uint8Array;
  readonly newestMarkerTs: number;
  readonly deadKeys: number;
}

export async function scanForward(
  iterator: EngineIterator,
  range: KeyRange,
  ts: number,
  limit: number,
): Promise<{ rows: KeyValue[]; deadRun: DeadRun }> {
  const rows: KeyValue[] = [];
  let currentKey: Uint8Array | undefined;
  let isCurrentResolved = false;
  let pageEntries = Math.min(limit + 8, 256);
  // The dead run ends at the first key whose newest version (its first row) is a value.
  let deadRunEnd: Uint8Array | undefined;
  let deadKeys = 0;
  let newestMarkerTs = 0;
  const finish = () => ({ rows, deadRun: { end: deadRunEnd ?? range.lt, newestMarkerTs, deadKeys } });
  for (;;) {
    const page = await iterator.next(pageEntries);
    if (page.length === 0) return finish();
    pageEntries = Math.min(pageEntries * 2, 4096);
    for (const entry of page) {
      const key = logicalKeyOf(entry.key);
      if (currentKey === undefined || !bytesEqual(key, currentKey)) {
        if (compareBytes(key, range.lt) >= 0) return finish();
        currentKey = key;
        isCurrentResolved = false;
        if (deadRunEnd === undefined && compareBytes(key, range.gte) >= 0) {
          if (isDeletionMarker(entry.value)) {
            deadKeys++;
            newestMarkerTs = Math.max(newestMarkerTs, commitTsOf(entry.key));
          } else {
            deadRunEnd = key;
          }
        }
      }
      // Versions of one key come newest first: the first at or below ts is the visible one.
      if (isCurrentResolved || commitTsOf(entry.key) > ts) continue;
      isCurrentResolved = true;
      if (compareBytes(key, range.gte) < 0) continue;
      const value = decodeVersionValue(entry.value);
      if (value === undefined) continue;
      rows.push({ key, value });
      if (rows.length >= limit) {
        // Keys after this one were not read: the run can only be known up to here.
        deadRunEnd ??= key;
        return finish();
      }
    }
  }
}

export async function scanReverse(
  iterator: EngineIterator,
  range: KeyRange,
  ts: number,
  limit: number,
): Promise<KeyValue[]> {
  const rows: KeyValue[] = [];
  let currentKey: Uint8Array | undefined;
  let visible: EngineEntry | undefined;
  let pageEntries = Math.min(limit + 8, 256);
  // Versions of one key come oldest first: the visible one is the last at or below ts.
  const emit = (): boolean => {
    if (currentKey === undefined || visible === undefined) return true;
    if (compareBytes(currentKey, range.lt) >= 0) return true;
    const value = decodeVersionValue(visible.value);
    if (value !== undefined) rows.push({ key: currentKey, value });
    return rows.length < limit;
  };
  for (;;) {
    const page = await iterator.next(pageEntries);
    if (page.length === 0) {
      emit();
      return rows;
    }
    pageEntries = Math.min(pageEntries * 2, 4096);
    for (const entry of page) {
      const key = logicalKeyOf(entry.key);
      if (currentKey === undefined || !bytesEqual(key, currentKey)) {
        if (!emit()) return rows;
        if (compareBytes(key, range.gte) < 0) return rows;
        currentKey = key;
        visible = undefined;
      }
      if (commitTsOf(entry.key) <= ts) visible = entry;
    }
  }
}
