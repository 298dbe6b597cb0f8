/**
 * When keys last changed, by hash bucket, so that a point read can tell whether what it found is
 * its key's newest version and may teach the newest-version cache. A read made at a view older
 * than the last commit, or during which a batch was written, could not say before (the store only
 * counted batches): under load that was four reads in ten past the cached head of a large backlog,
 * and the transaction that had read the row then sought it again in its apply (docs/BENCHMARKS.md,
 * the second session of 2026-12-06).
 *
 * Each bucket holds the newest commit timestamp written to any of its keys, and a count of changes
 * without one (collection's removal of a key's newest version, a deletion marker). A read at `ts`
 * found the newest version of its key if no key of its bucket was written above `ts` and none had
 * its newest version removed while it read; another key of the bucket changing only costs the
 * read its lesson. The buckets start at the store's last commit timestamp when it opened: nothing
 * is known of what was written before, and no view is older.
 */
import { keyHashOf } from './key-hash.js';

/** 65,536 buckets (768 KiB): at a few thousand keys written a second, a read's bucket rarely changes in its few milliseconds. */
const bucketsLog2 = 16;

/** What a read noted before it began (KeyChangeStamps.beforeRead). */
export interface ReadStamp {
  readonly bucket: number;
  readonly removals: number;
}

export class KeyChangeStamps {
  private readonly lastWriteTs: Float64Array;
  private readonly removals: Uint32Array;
  private readonly mask: number;

  constructor(openedAtTs: number) {
    this.lastWriteTs = new Float64Array(1 << bucketsLog2).fill(openedAtTs);
    this.removals = new Uint32Array(1 << bucketsLog2);
    this.mask = (1 << bucketsLog2) - 1;
  }

  /** A version of `key` was written at `commitTsUs` (the engine holds it now). */
  noteWrite(key: Uint8Array, commitTsUs: number, hash: number = keyHashOf(key)): void {
    const bucket = hash & this.mask;
    if (commitTsUs > (this.lastWriteTs[bucket] as number)) this.lastWriteTs[bucket] = commitTsUs;
  }

  /** The newest version of `key` was removed (collection of a deletion marker). */
  noteRemoval(key: Uint8Array): void {
    const bucket = keyHashOf(key) & this.mask;
    this.removals[bucket] = ((this.removals[bucket] as number) + 1) >>> 0;
  }

  beforeRead(key: Uint8Array): ReadStamp {
    const bucket = keyHashOf(key) & this.mask;
    return { bucket, removals: this.removals[bucket] as number };
  }

  /** Whether a read at `ts` that began at `stamp` and just ended found its key's newest version (or that it has none). */
  isNewestAt(stamp: ReadStamp, ts: number): boolean {
    return (this.lastWriteTs[stamp.bucket] as number) <= ts && this.removals[stamp.bucket] === stamp.removals;
  }
}
