import type { Entry } from '../../../src/raft/types.js';
import { entryFingerprint } from '../applied-digest.js';
import { InvariantViolationError } from './invariant-violation-error.js';

interface EntryIdentity {
  readonly previousTerm: number;
  readonly fingerprint: string;
  readonly source: string;
}

/**
 * Raft §5.3, Figure 3: "Log Matching: if two logs contain an entry with the same index and term,
 * then the logs are identical in all entries up through the given index."
 *
 * Checked by induction instead of comparing whole logs: every entry anyone writes or sends is
 * recorded under (index, term) with its payload and the term of the entry before it. If every
 * (index, term) always comes with the same payload and the same predecessor term, then by
 * induction two logs sharing (index, term) share their whole prefix. Cost: O(1) per entry.
 */
export class LogMatchingChecker {
  private readonly identities = new Map<string, EntryIdentity>();
  private readonly fingerprints = new WeakMap<Entry, string>();

  /** Entries that follow the entry at `prevIndex` (of term `prevTerm`) in some log. */
  observeEntries(prevIndex: number, prevTerm: number, entries: readonly Entry[], source: string): void {
    let previousIndex = prevIndex;
    let previousTerm = prevTerm;
    for (const entry of entries) {
      if (entry.index !== previousIndex + 1) {
        throw new InvariantViolationError(
          'logMatching',
          `${source}: entry ${entry.index} follows entry ${previousIndex}`,
        );
      }
      this.observeEntry(entry, previousTerm, source);
      previousIndex = entry.index;
      previousTerm = entry.term;
    }
  }

  private observeEntry(entry: Entry, previousTerm: number, source: string): void {
    const key = `${entry.index}/${entry.term}`;
    const fingerprint = this.fingerprintOf(entry);
    const known = this.identities.get(key);
    if (known === undefined) {
      this.identities.set(key, { previousTerm, fingerprint, source });
      return;
    }
    if (known.fingerprint !== fingerprint) {
      throw new InvariantViolationError(
        'logMatching',
        `entry ${entry.index} of term ${entry.term} has different contents in ${known.source} and ${source}`,
      );
    }
    if (known.previousTerm !== previousTerm) {
      throw new InvariantViolationError(
        'logMatching',
        `entry ${entry.index} of term ${entry.term} follows an entry of term ${known.previousTerm} in ${known.source} but of term ${previousTerm} in ${source}`,
      );
    }
  }

  private fingerprintOf(entry: Entry): string {
    let fingerprint = this.fingerprints.get(entry);
    if (fingerprint === undefined) {
      fingerprint = entryFingerprint(entry);
      this.fingerprints.set(entry, fingerprint);
    }
    return fingerprint;
  }
}
