import { assert } from '../base/assert.js';
import type { Entry, Snapshot } from './types.js';

/**
 * The tail of the log not yet known to be durable: entries (and possibly a snapshot) the runtime
 * has been handed in a Ready but has not confirmed with advance(). `offset` is the index of the
 * first unstable entry; everything before it is in storage.
 */
export class UnstableLog {
  snapshot: Snapshot | null = null;
  entries: Entry[] = [];

  constructor(public offset: number) {}

  /** The first index known only here: set only while a snapshot is pending. */
  maybeFirstIndex(): number | null {
    return this.snapshot === null ? null : this.snapshot.meta.index + 1;
  }

  maybeLastIndex(): number | null {
    if (this.entries.length > 0) return this.offset + this.entries.length - 1;
    if (this.snapshot !== null) return this.snapshot.meta.index;
    return null;
  }

  maybeTerm(index: number): number | null {
    if (index < this.offset) {
      if (this.snapshot !== null && this.snapshot.meta.index === index) return this.snapshot.meta.term;
      return null;
    }
    const last = this.maybeLastIndex();
    if (last === null || index > last) return null;
    return (this.entries[index - this.offset] as Entry).term;
  }

  /** The runtime made entries up to (index, term) durable. A mismatched term means the entries were replaced meanwhile. */
  stableTo(index: number, term: number): void {
    const found = this.maybeTerm(index);
    if (found === null || found !== term || index < this.offset) return;
    this.entries = this.entries.slice(index + 1 - this.offset);
    this.offset = index + 1;
  }

  stableSnapTo(index: number): void {
    if (this.snapshot !== null && this.snapshot.meta.index === index) this.snapshot = null;
  }

  restore(snapshot: Snapshot): void {
    this.offset = snapshot.meta.index + 1;
    this.entries = [];
    this.snapshot = snapshot;
  }

  /** Appends entries, truncating whatever they overwrite. */
  truncateAndAppend(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    const after = first.index;
    if (after === this.offset + this.entries.length) {
      // A loop, not push(...entries): spreading a long catch-up batch would overflow the stack.
      for (const entry of entries) this.entries.push(entry);
    } else if (after <= this.offset) {
      // The new entries replace everything unstable (and maybe some of storage's tail).
      this.offset = after;
      this.entries = [...entries];
    } else {
      this.entries = [...this.entries.slice(0, after - this.offset), ...entries];
    }
  }

  /** Entries in [lo, hi), which must lie within the unstable range. */
  slice(lo: number, hi: number): Entry[] {
    assert(
      lo >= this.offset && hi <= this.offset + this.entries.length && lo <= hi,
      () => `unstable slice [${lo}, ${hi}) out of [${this.offset}, ${this.offset + this.entries.length})`,
    );
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }
}
