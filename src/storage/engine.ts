/**
 * An ordered key-value store of byte strings: what the MVCC layer needs from a disk. Two
 * implementations: LevelEngine (classic-level, the only one that does I/O) and MemoryEngine
 * (deterministic, with a crash model for the simulator).
 *
 * Contract shared by both:
 * - keys order bytewise; values are opaque; neither is mutated or retained by reference after
 *   a call returns (an engine copies what it keeps);
 * - `write` applies its batch atomically: a reader sees all of it or none of it;
 * - an iterator and a snapshot read one consistent state: the one at the time they were created;
 * - `sync: true` makes the batch, and every batch written before it, durable before the promise
 *   resolves; `sync: false` batches may be lost in a crash until a later synced batch (or flush).
 */
import { RaftqError } from '../base/errors.js';
import { bytesOfRows } from './txn.js';

export type EngineWrite =
  | { readonly kind: 'put'; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly kind: 'delete'; readonly key: Uint8Array };

export interface EngineEntry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** Bounds of an iteration: [gte, lt), either side open when absent. */
export interface EngineIteratorOptions {
  readonly gte?: Uint8Array | undefined;
  readonly lt?: Uint8Array | undefined;
  readonly reverse?: boolean | undefined;
  /**
   * The reader wants many rows (a garbage-collection step, a log replay): each native read brings
   * back up to raftqLimits.levelDbIteratorBatchBytes instead of LevelDB's small default batch.
   */
  readonly isBulk?: boolean | undefined;
}

export interface EngineIterator {
  /** Up to `entriesMax` next entries in iteration order; an empty array means the end. */
  next(entriesMax: number): Promise<EngineEntry[]>;
  /**
   * Repositions the iterator: the next entry is the first at or after `target` (at or before it,
   * in reverse), still within the iterator's bounds.
   */
  seek(target: Uint8Array): void;
  close(): Promise<void>;
}

export interface EngineReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Point reads of many keys at one consistent state, in one round trip where the engine can. */
  getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>>;
  iterator(options: EngineIteratorOptions): EngineIterator;
}

/** A frozen view of the engine; release it so the engine can free what only it still holds. */
export interface EngineSnapshot extends EngineReader {
  release(): Promise<void>;
}

export interface Engine extends EngineReader {
  write(writes: readonly EngineWrite[], options: { readonly sync: boolean }): Promise<void>;
  /** Makes every write so far durable (like a synced empty batch). */
  flush(): Promise<void>;
  snapshot(): EngineSnapshot;
  close(): Promise<void>;
}

/** An operation on an engine, iterator or snapshot after it was closed (or lost in a crash). */
export class EngineClosedError extends RaftqError {
  readonly code = 'EngineClosed';
  constructor(readonly what: string) {
    super(`The storage engine is closed: cannot ${what}`);
  }
}

/** Entries read first by readRangeWithinBytes under a byte bound, to learn the range's row size before larger pages. */
const firstPageWithinBytes = 32;
/** Entries one native read of a bulk iteration asks for at most. */
const pageEntriesMax = 1024;

/**
 * Reads entries of a range through one iterator until `entriesMax` entries or `bytesMax` bytes of
 * keys and values (at least one entry), then closes it. `isCut`: it stopped at the byte bound, so
 * the range may hold more; `bytes`: what the entries weigh. Under a finite bound, pages after the
 * first are sized by the mean entry read so far, so a range of large values is not read a thousand
 * entries past the bound.
 */
export async function readRangeWithinBytes(
  reader: EngineReader,
  options: EngineIteratorOptions,
  bounds: { readonly entriesMax: number; readonly bytesMax: number },
): Promise<{ entries: EngineEntry[]; bytes: number; isCut: boolean }> {
  const iterator = reader.iterator(bounds.entriesMax > 1 ? { ...options, isBulk: true } : options);
  try {
    const entries: EngineEntry[] = [];
    let bytes = 0;
    let pageMax = Number.isFinite(bounds.bytesMax) ? firstPageWithinBytes : pageEntriesMax;
    while (entries.length < bounds.entriesMax) {
      if (bytes >= bounds.bytesMax) return { entries, bytes, isCut: true };
      const page = await iterator.next(Math.min(bounds.entriesMax - entries.length, pageMax));
      if (page.length === 0) break;
      bytes += bytesOfRows(page);
      entries.push(...page);
      const meanBytes = bytes / entries.length;
      pageMax = Math.min(pageEntriesMax, Math.max(1, Math.floor((bounds.bytesMax - bytes) / meanBytes)));
    }
    return { entries, bytes, isCut: false };
  } finally {
    await iterator.close();
  }
}

/** Reads up to `entriesMax` entries of a range through one iterator, then closes it. */
export async function readRange(
  reader: EngineReader,
  options: EngineIteratorOptions,
  entriesMax: number,
): Promise<EngineEntry[]> {
  return (await readRangeWithinBytes(reader, options, { entriesMax, bytesMax: Number.POSITIVE_INFINITY })).entries;
}
