/**
 * What one reaper sweep did, per kind of row it deletes. The runtime turns it into metrics
 * (rows reaped per family); tests read it to see what a sweep touched.
 */
export interface ReaperSweepReport {
  /** Rows of purged or deleted generations (every family). */
  tombstonedRowsDeleted: number;
  /** Tombstones deleted once their generation was empty. */
  tombstonesCleared: number;
  /** Messages past their queue's retention period. */
  expiredMessagesDeleted: number;
  /** Rows of those messages (data, state, vis, age and group rows). */
  expiredRowsDeleted: number;
  dedupRowsDeleted: number;
  attemptRowsDeleted: number;
  /** vis, age and group rows whose message data is gone or names another row; state rows whose data is gone. */
  danglingRowsDeleted: number;
  /** Finished message move tasks past their retention or beyond the newest kept per source. */
  moveTasksDeleted: number;
  queuesVisited: number;
  tombstonesVisited: number;
  /** False when the sweep stopped early because leadership moved (its signal was aborted). */
  isComplete: boolean;
  /**
   * A queue's retention step used its whole row budget: more expired messages are waiting, and
   * the runtime sweeps again at once instead of after its interval, so retention keeps up with any
   * sustained expiry rate while each sweep stays bounded.
   */
  hasExpiredBacklog: boolean;
  /**
   * A tombstoned generation still has rows after the sweep used its clearing budget: the runtime
   * sweeps again at once, so a deleted queue of millions of messages is gone in minutes, not hours.
   */
  hasTombstonedBacklog: boolean;
}

export function emptyReaperReport(): ReaperSweepReport {
  return {
    tombstonedRowsDeleted: 0,
    tombstonesCleared: 0,
    expiredMessagesDeleted: 0,
    expiredRowsDeleted: 0,
    dedupRowsDeleted: 0,
    attemptRowsDeleted: 0,
    danglingRowsDeleted: 0,
    moveTasksDeleted: 0,
    queuesVisited: 0,
    tombstonesVisited: 0,
    isComplete: true,
    hasExpiredBacklog: false,
    hasTombstonedBacklog: false,
  };
}

/** Rows deleted per family label, for the metric raftq_reaper_rows_total{family}. */
export function reapedRowsByFamily(report: ReaperSweepReport): Record<string, number> {
  return {
    tombstoned: report.tombstonedRowsDeleted,
    tombstone: report.tombstonesCleared,
    expired: report.expiredRowsDeleted,
    dedup: report.dedupRowsDeleted,
    attempt: report.attemptRowsDeleted,
    dangling: report.danglingRowsDeleted,
    move: report.moveTasksDeleted,
  };
}
