import { assert } from '../base/assert.js';
import { limitEntriesBySize } from './entry-size.js';
import { CompactedError, SnapshotOutOfDateError, UnavailableError } from './errors.js';
import type { ConfState, Entry, HardState, RaftStorage, Snapshot } from './types.js';
import { EntryType } from './types.js';

const emptyConfState: ConfState = { voters: [], learners: [] };
const emptyHardState: HardState = { term: 0, vote: '', commit: 0 };

/**
 * An in-memory RaftStorage for tests and the simulator. The log is kept behind a dummy entry at
 * the snapshot's index carrying the snapshot's term, so that term(snapshotIndex) stays
 * answerable after compaction (the leader needs it as the logTerm of the first append).
 *
 * The runtime writes it after each Ready (append, setHardState, applySnapshot) and the core only
 * reads it; so this object plays the part of durable storage.
 */
export class MemoryRaftStorage implements RaftStorage {
  private hardState: HardState;
  private confState: ConfState;
  private currentSnapshot: Snapshot;
  /** entries[0] is the dummy at the snapshot index; entries[i] has index offset + i. */
  private log: Entry[];

  /** Bootstrap: the voters and learners of `confState` form the configuration at index 0. */
  constructor(initial?: { confState?: ConfState; hardState?: HardState }) {
    this.hardState = initial?.hardState ?? emptyHardState;
    this.confState = initial?.confState ?? emptyConfState;
    this.currentSnapshot = { meta: { index: 0, term: 0, confState: this.confState }, data: new Uint8Array(0) };
    this.log = [{ index: 0, term: 0, type: EntryType.Normal, data: new Uint8Array(0) }];
  }

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: this.hardState, confState: this.confState };
  }

  entries(lo: number, hi: number, maxBytes: number): Entry[] {
    const offset = this.offset();
    if (lo <= offset) throw new CompactedError(lo, offset + 1);
    if (hi > this.lastIndex() + 1) throw new UnavailableError(hi - 1, this.lastIndex());
    assert(lo <= hi, () => `entries: lo ${lo} > hi ${hi}`);
    return limitEntriesBySize(this.log.slice(lo - offset, hi - offset), maxBytes);
  }

  term(index: number): number {
    const offset = this.offset();
    if (index < offset) throw new CompactedError(index, offset + 1);
    if (index > this.lastIndex()) throw new UnavailableError(index, this.lastIndex());
    return (this.log[index - offset] as Entry).term;
  }

  firstIndex(): number {
    return this.offset() + 1;
  }

  lastIndex(): number {
    return this.offset() + this.log.length - 1;
  }

  snapshot(): Snapshot {
    return this.currentSnapshot;
  }

  /** Appends entries, first truncating any tail they conflict with (a new leader overwrote it). */
  append(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    const offset = this.offset();
    const last = (entries[entries.length - 1] as Entry).index;
    // Entries already compacted away are committed and identical: skip them.
    if (last <= offset) return;
    const fresh = first.index <= offset ? entries.slice(offset + 1 - first.index) : entries;
    const freshFirst = (fresh[0] as Entry).index;
    assert(
      freshFirst <= this.lastIndex() + 1,
      () => `append: gap between last index ${this.lastIndex()} and ${freshFirst}`,
    );
    for (let i = 1; i < fresh.length; i++) {
      assert((fresh[i] as Entry).index === freshFirst + i, 'append: entries must be contiguous');
    }
    this.log.length = freshFirst - offset;
    for (const entry of fresh) this.log.push(entry);
  }

  setHardState(hardState: HardState): void {
    this.hardState = hardState;
  }

  /**
   * Records the configuration as of the last applied entry, for a runtime that restarts with
   * `applied` past the snapshot (initialState must describe the configuration at `applied`).
   */
  setConfState(confState: ConfState): void {
    this.confState = confState;
  }

  /** Replaces the whole log with a snapshot received from the leader. */
  applySnapshot(snapshot: Snapshot): void {
    const currentIndex = this.currentSnapshot.meta.index;
    if (snapshot.meta.index <= currentIndex) throw new SnapshotOutOfDateError(snapshot.meta.index, currentIndex);
    this.currentSnapshot = snapshot;
    this.confState = snapshot.meta.confState;
    this.log = [
      { index: snapshot.meta.index, term: snapshot.meta.term, type: EntryType.Normal, data: new Uint8Array(0) },
    ];
  }

  /** Records a snapshot of the applied state at `index`; does not compact (see compact). */
  createSnapshot(index: number, confState: ConfState, data: Uint8Array): Snapshot {
    const currentIndex = this.currentSnapshot.meta.index;
    if (index <= currentIndex) throw new SnapshotOutOfDateError(index, currentIndex);
    assert(index <= this.lastIndex(), () => `createSnapshot: index ${index} > last index ${this.lastIndex()}`);
    this.currentSnapshot = { meta: { index, term: this.term(index), confState }, data };
    this.confState = confState;
    return this.currentSnapshot;
  }

  /**
   * Discards entries before `index`; the entry at `index` becomes the new dummy. Never past the
   * snapshot: a follower that needs the discarded entries could then be sent nothing that helps.
   */
  compact(index: number): void {
    const offset = this.offset();
    if (index <= offset) throw new CompactedError(index, offset + 1);
    assert(index <= this.lastIndex(), () => `compact: index ${index} > last index ${this.lastIndex()}`);
    assert(
      index <= this.currentSnapshot.meta.index,
      () => `compact: index ${index} is past the snapshot at ${this.currentSnapshot.meta.index}`,
    );
    const dummy = this.log[index - offset] as Entry;
    this.log = [
      { index: dummy.index, term: dummy.term, type: EntryType.Normal, data: new Uint8Array(0) },
      ...this.log.slice(index - offset + 1),
    ];
  }

  private offset(): number {
    return (this.log[0] as Entry).index;
  }
}
