import type { Entry } from './types.js';

/**
 * Bytes an entry costs on the wire and in memory, for flow control and Ready limits. The fixed
 * part approximates the encoded term, index and type so that empty entries (the leader's no-op,
 * heartbeats of the log) still count for something.
 */
export function entrySizeBytes(entry: Entry): number {
  return entry.data.byteLength + 24;
}

/** The payload that counts against the uncommitted-bytes bound: only what clients proposed. */
export function payloadSizeBytes(entries: readonly Entry[]): number {
  let total = 0;
  for (const entry of entries) total += entry.data.byteLength;
  return total;
}

/**
 * The longest prefix of `entries` whose total size stays within `sizeBytesMax`, but always at
 * least one entry so that an entry larger than the limit can still make progress.
 */
export function limitEntriesBySize<T extends Entry>(entries: T[], sizeBytesMax: number): T[] {
  let total = 0;
  for (let i = 0; i < entries.length; i++) {
    total += entrySizeBytes(entries[i] as T);
    if (total > sizeBytesMax && i > 0) return entries.slice(0, i);
  }
  return entries;
}
