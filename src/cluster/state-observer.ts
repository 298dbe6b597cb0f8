/**
 * What the runtime tells code that watches the state database (row counts for metrics, range
 * compaction). Both calls run inside the node's Ready loop, between two Readys: nothing is being
 * applied or collected while they run, so a frozen view taken in them matches the counts exactly.
 * They must be quick and must not throw.
 */
import type { LiveKeyChange } from '../storage/txn-apply.js';
import type { StateStore } from './state-store.js';

export interface AppliedStateChanges {
  /** Keys that gained or lost their value, in apply order. */
  readonly liveKeyChanges: readonly LiveKeyChange[];
  /** Versions written (one per distinct key of each committed txn). */
  readonly versionsWritten: number;
}

export interface StateObserver {
  onApplied(changes: AppliedStateChanges): void;
  /** At registration, and whenever the state database is replaced (a snapshot install). */
  onStateOpened(state: StateStore): void;
}
