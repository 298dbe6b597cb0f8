/**
 * What a checker may read of one node's log: the entries after its snapshot, and the snapshot's
 * index (entries at or below it are compacted: committed, applied, and no longer inspectable).
 */
export interface LogView {
  readonly snapshotIndex: number;
  readonly lastIndex: number;
  /** The term of the entry at `index`, or undefined if the log does not hold it. */
  termAt(index: number): number | undefined;
}
