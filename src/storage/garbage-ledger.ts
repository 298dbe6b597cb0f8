/**
 * The garbage the apply step made, in the order it made it, so that collection can remove exactly
 * that instead of reading the whole keyspace to find it. A pass over the keyspace reads every live
 * row, values included, to find the few dead ones: with a large backlog that is most of a node's
 * collection work, and its reads (a Buffer or two per row) were most of the allocation a node did
 * while consuming from a million queued messages (docs/BENCHMARKS.md).
 *
 * Two kinds of entries, each queue in the order of the commits that made them (commit timestamps
 * only grow, so each queue is also in order of when its entries become due):
 * - hidden: a version of key K at `hiddenTs` that a newer version at `hidingTs` hides. It goes once
 *   the read watermark W reaches `hidingTs`: no read at W or above can see it. `hiddenTs` is
 *   unknown (-1) when the apply step did not look the key up (a delete vouched live,
 *   TxnWrite.isLiveKey, whose newest version was not in the newest-version cache); then every
 *   version of K older than `hidingTs` goes, and collection reads K's versions to find them.
 * - marker: a deletion marker of K at `ts`. It goes once the horizon H reaches `ts`, as a pass
 *   would remove it (version-gc.ts): at or below H it hides no conflict, and a read sees "absent"
 *   with or without it, provided every older version of K has gone first. Every older version was
 *   hidden by a commit at or before `ts`, so its hidden entry is due no later (H ≤ W); `takeDue`
 *   hands out a marker only once every hidden entry at or before it has been handed out.
 *
 * Removing by exact physical key without reading is safe whatever happened since: a version hidden
 * below W stays hidden (later versions are newer still), and a marker at or below H is removable
 * whether or not a newer version came. Removing something already gone (a pass got there first) is
 * a no-op.
 *
 * The ledger is this node's own (collection is local), exact only for what it was told: the store
 * (mvcc-store.ts) says when it is complete. Entries sit in two byte arenas, which the JavaScript
 * collector never walks; `bytesMax` bounds them, and a record that would pass it is refused (the
 * store then starts over and lets passes find what was dropped).
 */
import { assert } from '../base/assert.js';

/** What one apply step hid and marked, as flat arrays (no object per entry on the apply path). */
export interface GarbageNotes {
  readonly hiddenKeys: Uint8Array[];
  /** Two numbers per hidden key: hidingTs, then hiddenTs (-1: unknown). */
  readonly hiddenTimes: number[];
  readonly markerKeys: Uint8Array[];
  readonly markerTimes: number[];
}

export function emptyGarbageNotes(): GarbageNotes {
  return { hiddenKeys: [], hiddenTimes: [], markerKeys: [], markerTimes: [] };
}

export const unknownTs = -1;

export interface HiddenVersion {
  readonly key: Uint8Array;
  readonly hidingTs: number;
  /** unknownTs: every version of `key` older than hidingTs. */
  readonly hiddenTs: number;
}

export interface DueMarker {
  readonly key: Uint8Array;
  readonly ts: number;
}

/** Entries handed out by takeDue, removed from the ledger by release once collection removed them. */
export interface LedgerTake {
  readonly hidden: readonly HiddenVersion[];
  readonly markers: readonly DueMarker[];
  /** Where each queue's head will be after release, and which ledger generation it is of. */
  readonly hiddenEnd: number;
  readonly markersEnd: number;
  readonly hiddenStart: number;
  readonly markersStart: number;
  readonly generation: number;
}

/** Each entry: key length (u16 little-endian), key bytes, then `timesPerEntry` float64 values. */
const lengthBytes = 2;
const keyBytesMax = 0xffff;
const timeBytes = 8;
const arenaBytesMin = 16 * 1024;

/** A first-in first-out queue of (key, times) entries in one growable byte arena. */
class EntryQueue {
  private arena = new Uint8Array(arenaBytesMin);
  private view = new DataView(this.arena.buffer);
  /** Offset of the oldest entry; entries run from head to tail. */
  head = 0;
  tail = 0;
  count = 0;
  /**
   * How far the arena's start has moved since the queue began (compactions move entries to the
   * start): an entry's position, head + base, stays the same while it is in the queue.
   */
  base = 0;
  /** Arenas allocated after the first: how often the queue grew or shrank. */
  arenaAllocations = 0;

  constructor(private readonly timesPerEntry: number) {}

  get arenaBytes(): number {
    return this.arena.length;
  }

  get bytes(): number {
    return this.tail - this.head;
  }

  entryBytes(key: Uint8Array): number {
    return lengthBytes + key.length + this.timesPerEntry * timeBytes;
  }

  push(key: Uint8Array, times: readonly number[], timesAt: number): void {
    const needed = this.entryBytes(key);
    if (this.tail + needed > this.arena.length) this.makeRoom(needed);
    let at = this.tail;
    this.arena[at] = key.length & 0xff;
    this.arena[at + 1] = key.length >>> 8;
    this.arena.set(key, at + lengthBytes);
    at += lengthBytes + key.length;
    for (let i = 0; i < this.timesPerEntry; i++)
      this.view.setFloat64(at + i * timeBytes, times[timesAt + i] as number, true);
    this.tail += needed;
    this.count++;
  }

  keyLengthAt(offset: number): number {
    return (this.arena[offset] as number) | ((this.arena[offset + 1] as number) << 8);
  }

  /**
   * The keys of the consecutive entries at `offsets` (ascending), as views into one copy of the
   * stretch of the arena they span (the arena moves when it grows or compacts). A copy per key, six
   * per consumed message (about 36,000 a second on a node consuming 6,000 messages a second), is
   * faster alone but not on a busy node: with one copy per take a node consumed at 12 % less CPU
   * per message (docs/BENCHMARKS.md, 2026-12-07).
   */
  keysAt(offsets: readonly number[]): Uint8Array[] {
    const first = offsets[0];
    const last = offsets[offsets.length - 1];
    if (first === undefined || last === undefined) return [];
    const copy = this.arena.slice(first, this.nextOffset(last));
    return offsets.map((offset) => {
      const start = offset - first + lengthBytes;
      return copy.subarray(start, start + this.keyLengthAt(offset));
    });
  }

  timeAt(offset: number, which: number): number {
    return this.view.getFloat64(offset + lengthBytes + this.keyLengthAt(offset) + which * timeBytes, true);
  }

  /**
   * The offsets of the oldest entries, from the head, while `isDue` holds of each one's first
   * time, at most `entriesMax` of them; and the offset where the run stopped.
   */
  dueFromHead(entriesMax: number, isDue: (firstTs: number) => boolean): { offsets: number[]; end: number } {
    const offsets: number[] = [];
    let at = this.head;
    while (offsets.length < entriesMax && at < this.tail && isDue(this.timeAt(at, 0))) {
      offsets.push(at);
      at = this.nextOffset(at);
    }
    return { offsets, end: at };
  }

  nextOffset(offset: number): number {
    return offset + lengthBytes + this.keyLengthAt(offset) + this.timesPerEntry * timeBytes;
  }

  /** Drops the entries from head up to `end`, `count` of them. */
  dropTo(end: number, count: number): void {
    this.head = end;
    this.count -= count;
    if (this.count > 0) return;
    // Empty: start again at the arena's start, and give back an arena a burst grew.
    this.shifted(this.head);
    if (this.arena.length > arenaBytesMin * 64) this.replaceArena(arenaBytesMin);
  }

  /** Forgets every entry. */
  reset(): void {
    this.shifted(this.head);
    this.tail = 0;
    this.count = 0;
    this.replaceArena(arenaBytesMin);
  }

  /**
   * Compacts live entries to the start once the dropped entries in front of them take at least half
   * as much room as they do, else grows to twice what is live. A queue whose length holds steady
   * (what collection keeps: about mvccHistoryMs of garbage) then settles in an arena twice its size
   * and moves each byte pushed about once, without allocating. (Compacting only when the live entries
   * fitted in half the arena, and growing by half otherwise, allocated a larger arena and copied the
   * whole queue every time the tail reached the end.)
   */
  private makeRoom(needed: number): void {
    const live = this.tail - this.head;
    if (2 * this.head >= live && live + needed <= this.arena.length) {
      this.arena.copyWithin(0, this.head, this.tail);
      this.shifted(this.head);
      return;
    }
    const old = this.arena.subarray(this.head, this.tail);
    this.replaceArena(Math.max(arenaBytesMin, 2 * (live + needed)));
    this.arena.set(old);
    this.shifted(this.head);
  }

  private replaceArena(bytes: number): void {
    this.arenaAllocations++;
    this.arena = new Uint8Array(bytes);
    this.view = new DataView(this.arena.buffer);
  }

  /** The entries moved `by` bytes towards the arena's start. */
  private shifted(by: number): void {
    this.base += by;
    this.tail -= by;
    this.head = 0;
  }
}

export class GarbageLedger {
  private readonly hidden = new EntryQueue(2);
  private readonly markers = new EntryQueue(1);
  /** Bumped by clear(): a take of an earlier generation releases nothing. */
  private generationValue = 0;

  constructor(private readonly bytesMax: number) {
    assert(
      Number.isSafeInteger(bytesMax) && bytesMax > 0,
      () => `bytesMax must be a positive integer, got ${bytesMax}`,
    );
  }

  get entryCount(): number {
    return this.hidden.count + this.markers.count;
  }

  get sizeBytes(): number {
    return this.hidden.bytes + this.markers.bytes;
  }

  get generation(): number {
    return this.generationValue;
  }

  /** The room the two queues' arenas take, and how many times they were allocated anew (for tests). */
  arenaUse(): { bytes: number; allocations: number } {
    return {
      bytes: this.hidden.arenaBytes + this.markers.arenaBytes,
      allocations: this.hidden.arenaAllocations + this.markers.arenaAllocations,
    };
  }

  /** Appends one apply step's notes; false (and nothing appended) when they would pass bytesMax or a key is too long. */
  record(notes: GarbageNotes): boolean {
    let needed = 0;
    for (const key of notes.hiddenKeys) {
      if (key.length > keyBytesMax) return false;
      needed += this.hidden.entryBytes(key);
    }
    for (const key of notes.markerKeys) {
      if (key.length > keyBytesMax) return false;
      needed += this.markers.entryBytes(key);
    }
    if (this.sizeBytes + needed > this.bytesMax) return false;
    notes.hiddenKeys.forEach((key, i) => this.hidden.push(key, notes.hiddenTimes, 2 * i));
    notes.markerKeys.forEach((key, i) => this.markers.push(key, notes.markerTimes, i));
    return true;
  }

  /** Forgets every entry (the store no longer trusts the ledger to be complete). */
  clear(): void {
    this.hidden.reset();
    this.markers.reset();
    this.generationValue++;
  }

  /** Whether takeDue would hand anything out at these watermarks. */
  hasDue(watermarkTs: number, horizonTs: number): boolean {
    const { hidden, markers } = this;
    if (hidden.count > 0 && hidden.timeAt(hidden.head, 0) <= watermarkTs) return true;
    if (markers.count === 0) return false;
    const markerTs = markers.timeAt(markers.head, 0);
    return markerTs <= horizonTs && (hidden.count === 0 || markerTs < hidden.timeAt(hidden.head, 0));
  }

  /**
   * Up to `entriesMax` due hidden versions (hidingTs ≤ W) and up to `entriesMax` due markers (ts ≤ H,
   * and before every hidden entry left behind), oldest first. Nothing leaves the ledger until
   * release(take): a take that is never finished is handed out again.
   */
  takeDue(watermarkTs: number, horizonTs: number, entriesMax: number): LedgerTake {
    const { hidden, markers } = this;
    const dueHidden = hidden.dueFromHead(entriesMax, (hidingTs) => hidingTs <= watermarkTs);
    const hiddenKeys = hidden.keysAt(dueHidden.offsets);
    const hiddenOut: HiddenVersion[] = dueHidden.offsets.map((offset, i) => ({
      key: hiddenKeys[i] as Uint8Array,
      hidingTs: hidden.timeAt(offset, 0),
      hiddenTs: hidden.timeAt(offset, 1),
    }));
    const firstLeftTs = dueHidden.end < hidden.tail ? hidden.timeAt(dueHidden.end, 0) : Infinity;
    const dueMarkers = markers.dueFromHead(entriesMax, (ts) => ts <= horizonTs && ts < firstLeftTs);
    const markerKeys = markers.keysAt(dueMarkers.offsets);
    const markersOut: DueMarker[] = dueMarkers.offsets.map((offset, i) => ({
      key: markerKeys[i] as Uint8Array,
      ts: markers.timeAt(offset, 0),
    }));
    return {
      hidden: hiddenOut,
      markers: markersOut,
      hiddenStart: hidden.head + hidden.base,
      hiddenEnd: dueHidden.end + hidden.base,
      markersStart: markers.head + markers.base,
      markersEnd: dueMarkers.end + markers.base,
      generation: this.generationValue,
    };
  }

  /** Removes a take's entries, if the ledger is still where the take found it. */
  release(take: LedgerTake): void {
    const { hidden, markers } = this;
    if (
      take.generation !== this.generationValue ||
      take.hiddenStart !== hidden.head + hidden.base ||
      take.markersStart !== markers.head + markers.base
    )
      return;
    hidden.dropTo(take.hiddenEnd - hidden.base, take.hidden.length);
    markers.dropTo(take.markersEnd - markers.base, take.markers.length);
  }
}
