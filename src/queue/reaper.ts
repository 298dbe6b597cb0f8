/**
 * The reaper: background cleanup that the leader runs on a short tick (docs/architecture/reaper.md). Each sweep
 * does bounded work, as ordinary transactions:
 * - tombstoned generations (purged or deleted, of live and deleted queues alike, with or without
 *   meta) are cleared a transaction each in turn, up to a budget per sweep, then the tombstone
 *   itself (docs/TRAPS.md, traps 5, 6);
 * - per live queue (reap-queue.ts): messages past retention through the by-age index, expired
 *   dedup and ReceiveRequestAttemptId rows, and dangling vis, age, group and state rows;
 * - finished message move tasks past their retention (reap-move-tasks.ts).
 * Bounds: reaperRowsPerQueuePerTickMax rows per queue per family per tick,
 * reaperTombstonedRowsPerSweepMax rows of tombstoned generations per sweep
 * (reaperTombstonedRowsPerTxnMax a transaction), and reaperQueuesPerTickMax queues and
 * reaperTombstonesPerTickMax tombstones per tick, visited in a rotation that resumes where the
 * last tick stopped, so neither a huge queue nor many queues starve the rest. Expired messages or
 * tombstoned rows left over make the runtime sweep again at once. Delivery never depends on the
 * reaper (receive skips expired messages, trap 13), and the cursors are in memory only: a leader
 * change mid-sweep (the signal aborts) only delays cleanup, and the next leader starts its own
 * rotation.
 */
import { Buffer } from 'node:buffer';
import { raftqLimits } from '../base/limits.js';
import { keySuccessor } from '../storage/key-codec.js';
import { bytesOfRows, type KeyRange, type KeyValue, type ReadView, type TxnWrite } from '../storage/txn.js';
import { GenerationKeys, globalKeyParts, globalKeys } from './layout/key-layout.js';
import type { QueueContext } from './queue-context.js';
import { MoveTaskReap } from './reap-move-tasks.js';
import { newQueueReapCursors, QueueReap, type QueueReapCursors } from './reap-queue.js';
import { emptyReaperReport, type ReaperSweepReport } from './reaper-report.js';

export type { ReaperSweepReport } from './reaper-report.js';

export interface ReaperSweepOptions {
  /** Aborted when this node stops leading: the sweep ends after the transaction in progress. */
  readonly signal?: AbortSignal;
}

export class QueueReaper {
  private readonly queueReap: QueueReap;
  private readonly moveTaskReap: MoveTaskReap;
  private readonly queueCursors = new Map<string, QueueReapCursors>();
  /** Where each tombstone's clearing resumes (nothing writes into a tombstoned generation). */
  private readonly tombstoneCursors = new Map<string, TombstoneCursor>();
  /** The next queue-index and tombstone keys the rotation visits. */
  private nextQueueKey: Uint8Array | undefined;
  private nextTombstoneKey: Uint8Array | undefined;

  constructor(private readonly ctx: QueueContext) {
    this.queueReap = new QueueReap(ctx, this.rowsMax);
    this.moveTaskReap = new MoveTaskReap(ctx, this.rowsMax);
  }

  private get rowsMax(): number {
    return raftqLimits.reaperRowsPerQueuePerTickMax.value;
  }

  async sweepOnce(options: ReaperSweepOptions = {}): Promise<ReaperSweepReport> {
    const report = emptyReaperReport();
    const isStopped = () => options.signal?.aborted === true;
    const { tombstones, queues } = await this.ctx.runner.read(async (view) => {
      const tombstonePage = await rotatingPage(
        view,
        globalKeys.tombstoneRange(),
        this.nextTombstoneKey,
        raftqLimits.reaperTombstonesPerTickMax.value,
      );
      const queuePage = await rotatingPage(
        view,
        globalKeys.queueIndexRange(),
        this.nextQueueKey,
        raftqLimits.reaperQueuesPerTickMax.value,
      );
      this.nextTombstoneKey = tombstonePage.next;
      this.nextQueueKey = queuePage.next;
      return {
        tombstones: tombstonePage.rows,
        queues: queuePage.rows.map((row) => globalKeyParts.queueIndexName(row.key)),
      };
    });
    if (!(await this.clearTombstones(tombstones, report, isStopped))) return { ...report, isComplete: false };
    for (const name of queues) {
      if (isStopped()) return { ...report, isComplete: false };
      const cursors = this.queueCursors.get(name) ?? newQueueReapCursors();
      this.queueCursors.set(name, cursors);
      if (!(await this.queueReap.reap(name, cursors, report, isStopped))) this.queueCursors.delete(name);
      report.queuesVisited++;
    }
    if (isStopped()) return { ...report, isComplete: false };
    report.moveTasksDeleted += await this.moveTaskReap.step();
    return report;
  }

  /**
   * Clears the page's tombstoned generations a transaction each in turn, until each is gone or the
   * sweep's budget is spent (then the report says a backlog is left). False if the sweep was stopped.
   */
  private async clearTombstones(
    tombstones: readonly KeyValue[],
    report: ReaperSweepReport,
    isStopped: () => boolean,
  ): Promise<boolean> {
    report.tombstonesVisited += tombstones.length;
    let budgetRows = raftqLimits.reaperTombstonedRowsPerSweepMax.value;
    // Rows are read whole (values included), so large messages spend a budget of bytes first.
    let budgetBytes = raftqLimits.reaperTombstonedBytesPerSweepMax.value;
    const hasBudget = (): boolean => budgetRows > 0 && budgetBytes > 0;
    let pending = tombstones.map((tombstone) => tombstone.key);
    while (pending.length > 0 && hasBudget()) {
      const left: Uint8Array[] = [];
      for (const tombstoneKey of pending) {
        if (isStopped()) return false;
        if (hasBudget()) {
          const outcome = await this.clearTombstoneChunk(tombstoneKey, budgetRows, report);
          budgetRows -= outcome.rows;
          budgetBytes -= outcome.bytes;
          if (outcome.isFinished) continue;
        }
        left.push(tombstoneKey);
      }
      pending = left;
    }
    if (pending.length > 0) report.hasTombstonedBacklog = true;
    return true;
  }

  /**
   * Deletes a transaction's worth of rows of a tombstoned generation (at most `budgetRows`); the
   * tombstone goes with the last of them. Finished: the tombstone is gone (now, or already).
   */
  private async clearTombstoneChunk(
    tombstoneKey: Uint8Array,
    budgetRows: number,
    report: ReaperSweepReport,
  ): Promise<{ rows: number; bytes: number; isFinished: boolean }> {
    const { queueName, generation } = globalKeyParts.tombstone(tombstoneKey);
    const whole = new GenerationKeys(queueName, generation).range();
    const cursorId = Buffer.from(tombstoneKey).toString('latin1');
    const cursor = this.tombstoneCursors.get(cursorId);
    const rowsMax = tombstonedRowsPerTxn(cursor?.rowBytes ?? assumedRowBytes, budgetRows);
    const outcome = await this.ctx.runner.run(
      'ReapGeneration',
      async ({ view }) => {
        if ((await view.get(tombstoneKey)) === undefined)
          return {
            readKeys: [],
            writes: [],
            result: { rows: 0, bytes: 0, isLast: false, isGone: true, next: undefined },
          };
        const rows = await view.scan({ gte: cursor?.next ?? whole.gte, lt: whole.lt }, { limit: rowsMax });
        const writes: TxnWrite[] = rows.map((row) => ({ kind: 'delete', key: row.key }));
        // Nothing writes into a tombstoned generation (every message-path txn reads meta+gen), so
        // once the range is empty it stays empty and the tombstone can go.
        const isLast = rows.length < rowsMax;
        if (isLast) writes.push({ kind: 'delete', key: tombstoneKey });
        const last = rows[rows.length - 1];
        return {
          readKeys: [tombstoneKey],
          writes,
          result: {
            rows: rows.length,
            bytes: bytesOfRows(rows),
            isLast,
            isGone: false,
            next: last === undefined ? undefined : keySuccessor(last.key),
          },
        };
      },
      { staleAnswerWithoutWritesIsAcceptable: true },
    );
    report.tombstonedRowsDeleted += outcome.rows;
    if (outcome.isLast) report.tombstonesCleared++;
    if (outcome.isLast || outcome.isGone) this.tombstoneCursors.delete(cursorId);
    else if (outcome.next !== undefined)
      this.tombstoneCursors.set(cursorId, { next: outcome.next, rowBytes: outcome.bytes / Math.max(1, outcome.rows) });
    return { rows: outcome.rows, bytes: outcome.bytes, isFinished: outcome.isLast || outcome.isGone };
  }
}

/** Where a tombstoned generation's clearing resumes, and the mean size of the rows it last read. */
interface TombstoneCursor {
  readonly next: Uint8Array;
  readonly rowBytes: number;
}

/** What a generation's first transaction assumes its rows weigh: the largest messages, so that it reads little. */
const assumedRowBytes = 65_536;

/**
 * Rows one clearing transaction reads: as many as reaperTombstonedBytesPerTxnMax holds at `rowBytes`
 * a row (it reads values too), at least one, at most reaperTombstonedRowsPerTxnMax and `budgetRows`.
 */
function tombstonedRowsPerTxn(rowBytes: number, budgetRows: number): number {
  const fitting = Math.floor(raftqLimits.reaperTombstonedBytesPerTxnMax.value / Math.max(1, rowBytes));
  return Math.max(1, Math.min(fitting, raftqLimits.reaperTombstonedRowsPerTxnMax.value, budgetRows));
}

/**
 * Up to `limit` rows of `range` from `from` on, wrapping around to its start (never visiting a
 * row twice), and the key the next page starts at.
 */
async function rotatingPage(
  view: ReadView,
  range: KeyRange,
  from: Uint8Array | undefined,
  limit: number,
): Promise<{ rows: KeyValue[]; next: Uint8Array | undefined }> {
  const start =
    from !== undefined && Buffer.compare(from, range.gte) > 0 && Buffer.compare(from, range.lt) < 0 ? from : range.gte;
  const rows = await view.scan({ gte: start, lt: range.lt }, { limit });
  if (rows.length < limit && Buffer.compare(start, range.gte) > 0) {
    rows.push(...(await view.scan({ gte: range.gte, lt: start }, { limit: limit - rows.length })));
  }
  const last = rows[rows.length - 1];
  return { rows, next: last === undefined ? undefined : keySuccessor(last.key) };
}
