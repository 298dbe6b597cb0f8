/**
 * The newest version of recently used keys, kept in memory so that the hottest reads do not open
 * a LevelDB iterator each: a queue's meta and gen rows (read by every message-path request and
 * validated by every apply), and the rows of queued messages (read by the receive, the delete and
 * their validation). Measured under SendMessage load, those point reads were most of a node's
 * LevelDB time (docs/BENCHMARKS.md, SQS).
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
 * step decides, so replicas with different cache contents still agree: which entries it keeps
 * (below) is a local choice.
 *
 * What it keeps when full. A queue is read from its head, its oldest messages, which is what a
 * least-recently-used cache drops first once the backlog is larger than the cache. So entries are
 * in one of three lists, and room is made in this order:
 * - `cold`: an entry without a kept value (a deletion marker, "no version", a value too large to
 *   keep) not read since it was learned. A consumed message leaves three or four of these; they
 *   are rarely read again, and one costs a seek at most. Oldest first. An entry learned by a point
 *   read is read, kept value or not: the transaction that read it validates it next, and for a
 *   value too large to keep that validation would otherwise read the whole value again.
 * - `read`, when it holds more than half of either bound: entries hit since they were learned
 *   (a queue's meta and gen rows, messages received and not yet deleted). Least recently used first.
 * - `unread`: values written (a send) or learned and not read since. NEWEST first: of two queued
 *   messages not yet read, the older one is read sooner, so a new send does not push out older
 *   unread messages; it is kept only if there is room. When the oldest are consumed their entries
 *   turn cold and go, and later sends take the room.
 * - `read`, least recently used first, when nothing else is left.
 * The price: a send to a queue whose consumers keep up is not kept while another queue's unread
 * backlog fills the cache; its receive then reads the engine once (a recent row), and learns it.
 */
import { assert } from '../base/assert.js';
import { keyHashOf } from './key-hash.js';

export interface NewestVersion {
  readonly commitTsUs: number;
  /** False for a deletion marker. */
  readonly isValue: boolean;
  /**
   * The value, when it is one and small enough to keep (undefined otherwise): a view of the
   * entry's bytes, which are never changed in place (a new version gets new bytes), so a reader
   * may keep it; nobody may write into it.
   */
  readonly value: Uint8Array | undefined;
}

export interface NewestVersionCacheOptions {
  /** Keys kept (see the file comment for which go first). */
  readonly entriesMax: number;
  /** Bytes of keys, kept values and per-entry bookkeeping (entryOverheadBytes). */
  readonly bytesMax: number;
  /** A larger value is not kept: its entry still answers version lookups, reads go to the engine. */
  readonly valueBytesMax: number;
}

/** The commit timestamp of an entry for a key known to have no version at all (no commit has this timestamp). */
export const noVersionTs = 0;

/**
 * Per-entry memory counted against bytesMax besides the key and value bytes: the entry object,
 * the typed array of key and value with its buffer, and the map slot. Measured on Node 20 (x64)
 * by filling a cache with 200,000 keys of 59 bytes: 340-450 bytes of RSS per entry beyond its key
 * and value bytes, for values of 0 to 1,024 bytes.
 */
export const entryOverheadBytes = 450;

/** Which list an entry is on (file comment). */
const enum Segment {
  Cold = 0,
  Unread = 1,
  Read = 2,
}

/**
 * An entry, on one doubly linked list and in one hash bucket. Handed to callers as a NewestVersion.
 * Its key and kept value share one array (key first): one typed array and one buffer per entry
 * instead of two, which is less memory and fewer objects for the garbage collector to trace.
 */
class Entry implements NewestVersion {
  prev: Entry | null = null;
  next: Entry | null = null;
  /** The next entry whose key has the same hash. */
  sameHash: Entry | null = null;
  segment = Segment.Cold;

  constructor(
    readonly hash: number,
    readonly keyLength: number,
    /** The key's bytes, then the kept value's. */
    public bytes: Uint8Array,
    public commitTsUs: number,
    public isValue: boolean,
    public hasKeptValue: boolean,
  ) {}

  get value(): Uint8Array | undefined {
    return this.hasKeptValue ? this.bytes.subarray(this.keyLength) : undefined;
  }

  hasKey(key: Uint8Array): boolean {
    const { bytes } = this;
    if (key.length !== this.keyLength) return false;
    // From the end: keys of one queue share long prefixes and differ in their last bytes.
    for (let i = key.length - 1; i >= 0; i--) if (bytes[i] !== key[i]) return false;
    return true;
  }
}

/** A copy of `key` followed by `value` (copies: either may be a view into a larger buffer the cache must not keep alive or see change). */
function entryBytes(key: Uint8Array, value: Uint8Array | undefined): Uint8Array {
  const bytes = new Uint8Array(key.length + (value?.length ?? 0));
  bytes.set(key);
  if (value !== undefined) bytes.set(value, key.length);
  return bytes;
}

/** Entries oldest (head) to newest (tail), with their count and cost. */
class EntryList {
  head: Entry | null = null;
  tail: Entry | null = null;
  size = 0;
  bytes = 0;

  append(entry: Entry, cost: number): void {
    entry.prev = this.tail;
    entry.next = null;
    if (this.tail === null) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    this.size += 1;
    this.bytes += cost;
  }

  remove(entry: Entry, cost: number): void {
    if (entry.prev === null) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === null) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = null;
    entry.next = null;
    this.size -= 1;
    this.bytes -= cost;
  }
}

function costOf(entry: Entry): number {
  return entry.bytes.length + entryOverheadBytes;
}

export class NewestVersionCache {
  /** Hash of the key → first entry with that hash (others follow on `sameHash`). */
  private readonly buckets = new Map<number, Entry>();
  private readonly lists: readonly [EntryList, EntryList, EntryList] = [
    new EntryList(),
    new EntryList(),
    new EntryList(),
  ];
  private count = 0;
  private bytes = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(private readonly options: NewestVersionCacheOptions) {
    assert(
      options.entriesMax > 0 && options.bytesMax > 0 && options.valueBytesMax >= 0,
      'cache bounds must be positive',
    );
  }

  /**
   * Whether a value written (or learned by a lookup that does not want it) is kept although its key
   * has not been read: the leader's receives read the messages it applies, so it keeps them; a
   * follower forwards every message-path operation, never reads them, and keeps only the values of
   * keys it reads (a queue's meta row) — one allocation and copy less of every body it applies.
   * Off, such a version is still remembered, without its value (validation needs only versions).
   */
  keepsUnreadValues = true;

  get size(): number {
    return this.count;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /** Lookups answered and not answered since the cache was made (for metrics and tests). */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.hitCount, misses: this.missCount };
  }

  /**
   * The newest version of `key`, if known. The answer is the cache's own entry, whose fields the
   * next remember or forgetVersion may change: callers read its fields at once and change nothing
   * in it. Its `value` may be kept and handed on (its bytes never change), never written into.
   */
  lookup(key: Uint8Array, hash: number = keyHashOf(key)): NewestVersion | undefined {
    const entry = this.find(hash, key);
    if (entry === undefined) {
      this.missCount += 1;
      return undefined;
    }
    this.hitCount += 1;
    this.move(entry, Segment.Read);
    return entry;
  }

  /**
   * lookup() for validating a key: counted as a hit or a miss, but the entry stays on its list. A
   * transaction that read the key already made it read; one that only names it (a write, a read
   * key of a message it did not fetch) wants its version, not its value, so the entry is not made
   * read — which would make the next write of the key keep its value (remember), on a follower a
   * copy of every receive state it applies.
   */
  versionOf(key: Uint8Array, hash: number = keyHashOf(key)): NewestVersion | undefined {
    const entry = this.find(hash, key);
    if (entry === undefined) this.missCount += 1;
    else this.hitCount += 1;
    return entry;
  }

  /** The newest version's commit timestamp, if the cache holds the key and it is a value; counts nothing, moves nothing. */
  peekValueCommitTs(key: Uint8Array, hash: number = keyHashOf(key)): number | undefined {
    const entry = this.find(hash, key);
    return entry !== undefined && entry.isValue ? entry.commitTsUs : undefined;
  }

  /**
   * Records the newest version of `key`. Only for a version just written by the apply step, or
   * just read inside the apply step's exclusive section (see the file comment); a version older
   * than the entry already held is a caller bug. `isRead`: the version was learned by a read that
   * wants its value (a point read), so it counts as read once.
   */
  remember(
    key: Uint8Array,
    commitTsUs: number,
    value: Uint8Array | undefined,
    options?: { isRead?: boolean },
    hash: number = keyHashOf(key),
  ): void {
    let entry = this.find(hash, key);
    const isWanted = this.keepsUnreadValues || options?.isRead === true || entry?.segment === Segment.Read;
    const isKept = isWanted && value !== undefined && value.byteLength <= this.options.valueBytesMax;
    let segment: Segment;
    if (entry === undefined) {
      entry = new Entry(
        hash,
        key.length,
        entryBytes(key, isKept ? value : undefined),
        commitTsUs,
        value !== undefined,
        isKept,
      );
      this.link(entry);
      segment = options?.isRead === true ? Segment.Read : isKept ? Segment.Unread : Segment.Cold;
    } else {
      const knownTs = entry.commitTsUs;
      assert(commitTsUs >= knownTs, () => `newest version of a key cannot go back from ${knownTs} to ${commitTsUs}`);
      // A key read since it was learned stays read while it keeps a value (a queue's meta row rewritten).
      const wasRead = entry.segment === Segment.Read;
      this.detach(entry);
      // A new kept value needs new bytes (a reader may hold the old value's). Without one — a
      // deletion marker, a value not kept — the entry keeps its array, an old value's bytes
      // included: they are counted in its cost until it goes, and no copy of the key is made for
      // every message a delete retires (an allocation outside the V8 heap each).
      if (isKept) entry.bytes = entryBytes(key, value);
      entry.commitTsUs = commitTsUs;
      entry.isValue = value !== undefined;
      entry.hasKeptValue = isKept;
      segment =
        options?.isRead === true ? Segment.Read : !isKept ? Segment.Cold : wasRead ? Segment.Read : Segment.Unread;
    }
    this.attach(entry, segment);
    this.evict();
  }

  /** Forgets `key` if its entry is the version at `commitTsUs` (garbage collection removed that version). */
  forgetVersion(key: Uint8Array, commitTsUs: number): void {
    const entry = this.find(keyHashOf(key), key);
    if (entry !== undefined && entry.commitTsUs === commitTsUs) this.drop(entry);
  }

  /** Entries per list, for tests and metrics. */
  get segmentSizes(): { readonly cold: number; readonly unread: number; readonly read: number } {
    const [cold, unread, read] = this.lists;
    return { cold: cold.size, unread: unread.size, read: read.size };
  }

  private find(hash: number, key: Uint8Array): Entry | undefined {
    let entry = this.buckets.get(hash) ?? null;
    while (entry !== null) {
      if (entry.hasKey(key)) return entry;
      entry = entry.sameHash;
    }
    return undefined;
  }

  private link(entry: Entry): void {
    entry.sameHash = this.buckets.get(entry.hash) ?? null;
    this.buckets.set(entry.hash, entry);
  }

  private unlink(entry: Entry): void {
    const first = this.buckets.get(entry.hash);
    if (first === entry) {
      if (entry.sameHash === null) this.buckets.delete(entry.hash);
      else this.buckets.set(entry.hash, entry.sameHash);
      return;
    }
    let before = first ?? null;
    while (before !== null && before.sameHash !== entry) before = before.sameHash;
    if (before !== null) before.sameHash = entry.sameHash;
  }

  private attach(entry: Entry, segment: Segment): void {
    const cost = costOf(entry);
    entry.segment = segment;
    this.lists[segment].append(entry, cost);
    this.count += 1;
    this.bytes += cost;
  }

  private detach(entry: Entry): void {
    const cost = costOf(entry);
    this.lists[entry.segment].remove(entry, cost);
    this.count -= 1;
    this.bytes -= cost;
  }

  /** To the newest end of `segment`'s list. */
  private move(entry: Entry, segment: Segment): void {
    this.detach(entry);
    this.attach(entry, segment);
  }

  private drop(entry: Entry): void {
    this.detach(entry);
    this.unlink(entry);
  }

  private evict(): void {
    const { entriesMax, bytesMax } = this.options;
    const [cold, unread, read] = this.lists;
    while (this.count > entriesMax || this.bytes > bytesMax) {
      const isReadOverShare = read.size * 2 > entriesMax || read.bytes * 2 > bytesMax;
      const victim = cold.head ?? (isReadOverShare ? read.head : null) ?? unread.tail ?? read.head;
      if (victim === null) break;
      this.drop(victim);
    }
  }
}
