import { assert } from '../base/assert.js';
import { limitEntriesBySize } from './entry-size.js';
import { CompactedError, UnavailableError } from './errors.js';
import type { Entry, RaftStorage, Snapshot } from './types.js';
import { UnstableLog } from './unstable-log.js';

/**
 * The log as the core sees it: durable entries in storage followed by the unstable tail, plus
 * the commit and applied indexes. Invariant: applied <= committed <= lastIndex.
 */
export class RaftLog {
  readonly unstable: UnstableLog;
  committed: number;
  applied: number;

  constructor(
    readonly storage: RaftStorage,
    private readonly readyCommittedBytesMax: number,
    /** The applyBeforeCommit fault (RaftFaults): hand out persisted entries for applying before they commit. */
    private readonly isApplyingBeforeCommit = false,
  ) {
    this.unstable = new UnstableLog(storage.lastIndex() + 1);
    this.committed = storage.firstIndex() - 1;
    this.applied = storage.firstIndex() - 1;
  }

  firstIndex(): number {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): number {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  /** The term at `index`, or null outside [firstIndex - 1, lastIndex]. */
  maybeTerm(index: number): number | null {
    if (index < this.firstIndex() - 1 || index > this.lastIndex()) return null;
    return this.unstable.maybeTerm(index) ?? this.storage.term(index);
  }

  /** The term at `index`; throws CompactedError or UnavailableError outside the log. */
  term(index: number): number {
    if (index < this.firstIndex() - 1) throw new CompactedError(index, this.firstIndex());
    if (index > this.lastIndex()) throw new UnavailableError(index, this.lastIndex());
    return this.unstable.maybeTerm(index) ?? this.storage.term(index);
  }

  lastTerm(): number {
    return this.term(this.lastIndex());
  }

  matchTerm(index: number, term: number): boolean {
    return this.maybeTerm(index) === term;
  }

  /** Raft §5.4.1: the later last term wins; with equal last terms, the longer log wins. */
  isUpToDate(lastIndex: number, term: number): boolean {
    const lastTerm = this.lastTerm();
    return term > lastTerm || (term === lastTerm && lastIndex >= this.lastIndex());
  }

  /** Index of the first entry that is new or conflicts with the log, or 0 if all are present. */
  findConflict(entries: readonly Entry[]): number {
    for (const entry of entries) {
      if (!this.matchTerm(entry.index, entry.term)) return entry.index;
    }
    return 0;
  }

  /**
   * The largest index <= `index` whose term is <= `term`, with that term (0 if it lies outside
   * the log). A follower sends it as its rejection hint; the leader uses it to skip whole terms.
   */
  findConflictByTerm(index: number, term: number): { index: number; term: number } {
    for (let i = Math.min(index, this.lastIndex()); i >= 0; i--) {
      const found = this.maybeTerm(i);
      if (found === null) return { index: i, term: 0 };
      if (found <= term) return { index: i, term: found };
    }
    return { index: 0, term: 0 };
  }

  /**
   * The follower side of AppendEntries: if the log has (index, logTerm), append what is new,
   * truncating a conflicting tail, and return the index of the last new entry; else null.
   */
  maybeAppend(index: number, logTerm: number, committed: number, entries: readonly Entry[]): number | null {
    if (!this.matchTerm(index, logTerm)) return null;
    const lastNewIndex = index + entries.length;
    const conflict = this.findConflict(entries);
    if (conflict !== 0) {
      assert(
        conflict > this.committed,
        () => `entry ${conflict} conflicts with committed entry (commit ${this.committed})`,
      );
      this.append(entries.slice(conflict - (index + 1)));
    }
    this.commitTo(Math.min(committed, lastNewIndex));
    return lastNewIndex;
  }

  append(entries: readonly Entry[]): number {
    const first = entries[0];
    if (first === undefined) return this.lastIndex();
    assert(
      first.index - 1 >= this.committed,
      () => `append at ${first.index} would overwrite committed ${this.committed}`,
    );
    assert(
      first.index <= this.lastIndex() + 1,
      () => `append at ${first.index} leaves a gap after ${this.lastIndex()}`,
    );
    this.unstable.truncateAndAppend(entries);
    return this.lastIndex();
  }

  /** Entries in [lo, hi), at most sizeBytesMax (but at least one). */
  slice(lo: number, hi: number, sizeBytesMax: number): Entry[] {
    if (lo >= hi) return [];
    if (lo < this.firstIndex()) throw new CompactedError(lo, this.firstIndex());
    assert(hi <= this.lastIndex() + 1, () => `slice [${lo}, ${hi}) past last index ${this.lastIndex()}`);
    const offset = this.unstable.offset;
    let result: Entry[] = [];
    if (lo < offset) {
      const stored = this.storage.entries(lo, Math.min(hi, offset), sizeBytesMax);
      // Storage stopped early at the size limit: the unstable part would break contiguity.
      if (stored.length < Math.min(hi, offset) - lo) return stored;
      result = stored;
    }
    if (hi > offset) {
      const unstable = this.unstable.slice(Math.max(lo, offset), hi);
      result = result.length === 0 ? unstable : result.concat(unstable);
    }
    return limitEntriesBySize(result, sizeBytesMax);
  }

  commitTo(index: number): void {
    if (index <= this.committed) return;
    assert(index <= this.lastIndex(), () => `commit ${index} is past last index ${this.lastIndex()}`);
    this.committed = index;
  }

  /** Commits `index` if it holds an entry of `term` (the leader's current term, Raft §5.4.2). */
  maybeCommit(index: number, term: number): boolean {
    if (index > this.committed && this.maybeTerm(index) === term) {
      this.commitTo(index);
      return true;
    }
    return false;
  }

  appliedTo(index: number): void {
    if (index === 0) return;
    assert(
      index <= this.applyBound() && index >= this.applied,
      () => `applied ${index} outside [${this.applied}, ${this.committed}]`,
    );
    this.applied = index;
  }

  stableTo(index: number, term: number): void {
    this.unstable.stableTo(index, term);
  }

  stableSnapTo(index: number): void {
    this.unstable.stableSnapTo(index);
  }

  /** The highest index known durable here; conservative (0) while a received snapshot is unpersisted. */
  persistedLastIndex(): number {
    if (this.unstable.snapshot !== null) return 0;
    return this.unstable.offset - 1;
  }

  restore(snapshot: Snapshot): void {
    this.committed = snapshot.meta.index;
    this.unstable.restore(snapshot);
  }

  snapshot(): Snapshot {
    return this.unstable.snapshot ?? this.storage.snapshot();
  }

  hasNextCommittedEntries(): boolean {
    if (this.unstable.snapshot !== null) return false;
    return this.applyBound() > Math.max(this.applied, this.firstIndex() - 1);
  }

  /** The last index entries may be applied up to: the commit index, unless the applyBeforeCommit fault is on. */
  private applyBound(): number {
    return this.isApplyingBeforeCommit ? Math.max(this.committed, this.storage.lastIndex()) : this.committed;
  }

  /** Committed entries not yet applied, bounded by bytes; none while a snapshot awaits install. */
  nextCommittedEntries(): Entry[] {
    if (!this.hasNextCommittedEntries()) return [];
    const lo = Math.max(this.applied + 1, this.firstIndex());
    return this.slice(lo, this.applyBound() + 1, this.readyCommittedBytesMax);
  }
}
