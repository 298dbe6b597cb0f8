/**
 * The newest version of recently used keys, kept in memory so that the hottest reads do not open
 * a LevelDB iterator each: a queue's meta and gen rows (read by every message-path request and
 * validated by every apply), and the rows of messages just sent or just received (read again by
 * the receive, the delete and their validation moments later). Measured under SendMessage load,
 * those point reads were most of a node's LevelDB time (docs/BENCHMARKS.md, SQS).
 *
 * An entry is exact: it is the newest version the engine holds for its key. That stays true
 * because every write of a user key goes through MvccStore.applyExclusive, which reports its
 * versions here once they are in the engine and before lastCommitTs moves past them (nothing
 * else awaits in between, so no read can see the new lastCommitTs and an old entry), and entries
 * are only ever learned from reads made inside that same exclusive section, where no write can
 * land between the read and the entry. Garbage collection removes only versions hidden by a
 * newer one, and a newest deletion marker at or below the horizon; it reports each removal
 * (forgetVersion), so an entry whose marker is gone goes too. Collection also counts as a write
 * for the lookups above.
 *
 * The cache changes which reads reach the engine, never what a read returns or what the apply
 * step decides, so replicas with different cache contents still agree.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';

export interface NewestVersion {
  readonly commitTsUs: number;
  /** False for a deletion marker. */
  readonly isValue: boolean;
  /** The value, when it is one and small enough to keep (undefined otherwise). */
  readonly value: Uint8Array | undefined;
}

export interface NewestVersionCacheOptions {
  /** Keys kept; the least recently used go first. */
  readonly entriesMax: number;
  /** Bytes of keys and kept values; the least recently used go first. */
  readonly bytesMax: number;
  /** A larger value is not kept: its entry still answers version lookups, reads go to the engine. */
  readonly valueBytesMax: number;
}

/** The commit timestamp of an entry for a key known to have no version at all (no commit has this timestamp). */
export const noVersionTs = 0;

/** Per-entry bookkeeping cost counted against bytesMax besides the key and value. */
const entryOverheadBytes = 64;

function keyId(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

export class NewestVersionCache {
  /** Insertion order is recency order: a touched entry is moved to the end. */
  private readonly entries = new Map<string, NewestVersion>();
  private bytes = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(private readonly options: NewestVersionCacheOptions) {
    assert(
      options.entriesMax > 0 && options.bytesMax > 0 && options.valueBytesMax >= 0,
      'cache bounds must be positive',
    );
  }

  get size(): number {
    return this.entries.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /** Lookups answered and not answered since the cache was made (for metrics and tests). */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.hitCount, misses: this.missCount };
  }

  /** The newest version of `key`, if known. Its value is the cache's own: callers copy it before they hand it on. */
  lookup(key: Uint8Array): NewestVersion | undefined {
    const id = keyId(key);
    const entry = this.entries.get(id);
    if (entry === undefined) {
      this.missCount += 1;
      return undefined;
    }
    this.hitCount += 1;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /**
   * Records the newest version of `key`. Only for a version just written by the apply step, or
   * just read inside the apply step's exclusive section (see the file comment); a version older
   * than the entry already held is a caller bug.
   */
  remember(key: Uint8Array, commitTsUs: number, value: Uint8Array | undefined): void {
    const id = keyId(key);
    const previous = this.entries.get(id);
    if (previous !== undefined) {
      assert(
        commitTsUs >= previous.commitTsUs,
        `newest version of a key cannot go back from ${previous.commitTsUs} to ${commitTsUs}`,
      );
      this.forget(id, previous);
    }
    const isKept = value !== undefined && value.byteLength <= this.options.valueBytesMax;
    const entry: NewestVersion = {
      commitTsUs,
      isValue: value !== undefined,
      value: isKept ? value.slice() : undefined,
    };
    this.entries.set(id, entry);
    this.bytes += this.costOf(id, entry);
    this.evict();
  }

  /**
   * Records that `key` has no version, unless an entry for it is already held (only for a key the
   * layer above knows was never written: MvccStoreOptions.impliedNewKeys).
   */
  rememberAbsent(key: Uint8Array): void {
    const id = keyId(key);
    if (this.entries.has(id)) return;
    const entry: NewestVersion = { commitTsUs: noVersionTs, isValue: false, value: undefined };
    this.entries.set(id, entry);
    this.bytes += this.costOf(id, entry);
    this.evict();
  }

  /** Forgets `key` if its entry is the version at `commitTsUs` (garbage collection removed that version). */
  forgetVersion(key: Uint8Array, commitTsUs: number): void {
    const id = keyId(key);
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.commitTsUs === commitTsUs) this.forget(id, entry);
  }

  private costOf(id: string, entry: NewestVersion): number {
    return id.length + (entry.value?.byteLength ?? 0) + entryOverheadBytes;
  }

  private forget(id: string, entry: NewestVersion): void {
    this.entries.delete(id);
    this.bytes -= this.costOf(id, entry);
  }

  private evict(): void {
    while (this.entries.size > this.options.entriesMax || this.bytes > this.options.bytesMax) {
      const oldest = this.entries.entries().next();
      if (oldest.done === true) break;
      const [id, entry] = oldest.value;
      this.forget(id, entry);
    }
  }
}
