/**
 * Deciding how far a Raft log read back from disk can be trusted, from what its open found: the
 * entries that passed their checks (stopping at the first damaged or missing one) and whether the
 * database's write-ahead log lost writes (level-wal-inspection.ts). Pure: the log store applies
 * the plan. The safety argument is in docs/architecture/cluster.md ("A damaged log tail").
 */
import type { Entry, HardState } from '../raft/types.js';
import type { WalDamage } from './level-wal-inspection.js';

export type EntryDamageReason = 'checksum' | 'undecodable' | 'wrong-index' | 'missing' | 'term-decreases';

/** Entries read in index order from the compaction point, up to the first that failed a check. */
export interface EntryScan {
  /** entries[0] is the dummy at the compaction point, then intact entries with consecutive indexes. */
  readonly entries: readonly Entry[];
  readonly firstDamage: { readonly index: number; readonly reason: EntryDamageReason } | null;
  /** The highest term of any entry that decoded, intact or not: the node had reached at least it. */
  readonly maxTermSeen: number;
}

/** What was wrong with the log at open and how it was cut back; the node repairs from the leader. */
export interface LogTailRepair {
  readonly walDamage: WalDamage | null;
  readonly entryDamage: EntryScan['firstDamage'];
  /** Last index of the log as found (intact entries only) and as kept. */
  readonly intactLastIndex: number;
  readonly keptLastIndex: number;
  readonly commitIndexBefore: number;
  readonly commitIndexAfter: number;
}

export interface TailRepairPlan {
  readonly keptLastIndex: number;
  readonly isCut: boolean;
  readonly hardState: HardState | undefined;
  /** Null when the log was whole: no repair needed. */
  readonly report: LogTailRepair | null;
}

export function planTailRepair(input: {
  readonly dummy: Entry;
  readonly scan: EntryScan;
  readonly walDamage: WalDamage | null;
  /** The hard state of the last intact write before the write-ahead log's damage, if it had one. */
  readonly hardStateBeforeDamage: HardState | null;
  readonly storedHardState: HardState | undefined;
}): TailRepairPlan {
  const { dummy, scan, walDamage, storedHardState } = input;
  const intactLastIndex = dummy.index + scan.entries.length - 1;
  let keptLastIndex = intactLastIndex;
  if (walDamage !== null) {
    // Writes after the damage may be lost, and LevelDB keeps later intact ones: an overwrite of a
    // stale tail could be lost while a later append survived. Entries the node knew committed
    // before the first lost write can no longer change; everything after them is fetched again.
    const trustedCommitIndex = input.hardStateBeforeDamage?.commit ?? dummy.index;
    keptLastIndex = Math.min(keptLastIndex, Math.max(dummy.index, trustedCommitIndex));
  }
  const isDamaged = walDamage !== null || scan.firstDamage !== null;
  const hardState =
    storedHardState === undefined && !isDamaged
      ? undefined
      : repairedHardState(storedHardState, keptLastIndex, scan.maxTermSeen);
  const commitIndexBefore = storedHardState?.commit ?? 0;
  return {
    keptLastIndex,
    isCut: keptLastIndex < dummy.index + scan.entries.length - 1 || scan.firstDamage !== null,
    hardState,
    report: isDamaged
      ? {
          walDamage,
          entryDamage: scan.firstDamage,
          intactLastIndex,
          keptLastIndex,
          commitIndexBefore,
          commitIndexAfter: hardState?.commit ?? 0,
        }
      : null,
  };
}

function repairedHardState(stored: HardState | undefined, keptLastIndex: number, maxTermSeen: number): HardState {
  const base = stored ?? { term: 0, vote: '', commit: 0 };
  const commit = Math.min(base.commit, keptLastIndex);
  // A lost write may have carried a newer term (and a vote in it); never go below a term an entry shows.
  if (maxTermSeen > base.term) return { term: maxTermSeen, vote: '', commit };
  if (commit === base.commit && stored !== undefined) return stored;
  return { term: base.term, vote: base.vote, commit };
}
