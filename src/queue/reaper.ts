/**
 * The reaper: background cleanup that the leader runs on a short tick (DESIGN.md §4). Each sweep
 * does a bounded amount of work per queue (raftqLimits.reaperRowsPerQueuePerTickMax rows per key
 * family) as ordinary transactions:
 * - tombstoned generations (purged or deleted, of live and deleted queues alike) are cleared
 *   range by range, then the tombstone itself (traps 5, 6);
 * - messages past retention in every live queue are deleted with all their index rows;
 * - expired FIFO dedup rows and ReceiveRequestAttemptId rows are deleted.
 * Delivery never depends on the reaper (an expired message is skipped by receive anyway), so a
 * leader change mid-sweep only delays cleanup; the next leader starts its own sweeps from scratch.
 */
import { Buffer } from 'node:buffer';
import { raftqLimits } from '../base/limits.js';
import { decodeKey, keySuccessor } from '../storage/key-codec.js';
import type { KeyRange, TxnWrite } from '../storage/txn.js';
import { GenerationKeys, globalKeys } from './key-layout.js';
import { decodeMessageRecord, isExpired } from './message-record.js';
import type { QueueContext } from './queue-context.js';
import { decodeDedupRow, messageDeletes } from './send-messages.js';

export interface ReaperSweepReport {
  tombstonedRowsDeleted: number;
  tombstonesCleared: number;
  expiredMessagesDeleted: number;
  dedupRowsDeleted: number;
  attemptRowsDeleted: number;
}

const decoder = new TextDecoder();

export class QueueReaper {
  /** Where the dedup and attempt scans of each queue resume, so large families are covered over several sweeps. */
  private readonly cursors = new Map<string, Uint8Array>();

  constructor(private readonly ctx: QueueContext) {}

  async sweepOnce(): Promise<ReaperSweepReport> {
    const report: ReaperSweepReport = { tombstonedRowsDeleted: 0, tombstonesCleared: 0, expiredMessagesDeleted: 0, dedupRowsDeleted: 0, attemptRowsDeleted: 0 };
    await this.clearTombstones(report);
    const names = await this.ctx.runner.read(async (view) => (await view.scan(globalKeys.queueIndexRange(), { limit: Number.MAX_SAFE_INTEGER })).map((row) => String(decodeKey(row.key)[1])));
    for (const name of names) {
      await this.reapExpiredMessages(name, report);
      await this.reapExpiredRows(name, 'dedup', report);
      await this.reapExpiredRows(name, 'attempt', report);
    }
    return report;
  }

  private get rowsMax(): number {
    return raftqLimits.reaperRowsPerQueuePerTickMax.value;
  }

  private async clearTombstones(report: ReaperSweepReport): Promise<void> {
    const tombstones = await this.ctx.runner.read(async (view) => view.scan(globalKeys.tombstoneRange(), { limit: Number.MAX_SAFE_INTEGER }));
    for (const tombstone of tombstones) {
      const [, name, generation] = decodeKey(tombstone.key);
      const keys = new GenerationKeys(String(name), Number(generation));
      const outcome = await this.ctx.runner.run('ReapGeneration', async ({ view }) => {
        const rows = await view.scan(keys.range(), { limit: this.rowsMax });
        const writes: TxnWrite[] = rows.map((row) => ({ kind: 'delete', key: row.key }));
        // Nothing writes into a tombstoned generation (every message-path txn reads meta+gen), so
        // once the range is empty it stays empty and the tombstone can go.
        const isLast = rows.length < this.rowsMax;
        if (isLast) writes.push({ kind: 'delete', key: tombstone.key });
        return { readKeys: [tombstone.key], writes, result: { rows: rows.length, isLast } };
      });
      report.tombstonedRowsDeleted += outcome.rows;
      if (outcome.isLast) report.tombstonesCleared++;
    }
  }

  private async reapExpiredMessages(name: string, report: ReaperSweepReport): Promise<void> {
    report.expiredMessagesDeleted += await this.ctx.runner.run('ReapExpiredMessages', async ({ view, nowMs }) => {
      const queue = await this.ctx.maybeLoadQueue(view, name);
      if (queue === undefined) return { readKeys: [], writes: [], result: 0 };
      const retentionMs = queue.meta.config.messageRetentionSeconds * 1000;
      const readKeys = [...queue.readKeys];
      const writes: TxnWrite[] = [];
      let deleted = 0;
      for (let partition = 0; partition < queue.meta.partitionCount && writes.length < this.rowsMax; partition++) {
        const rows = await view.scan(queue.keys.ageRangeBefore(partition, nowMs - retentionMs + 1), { limit: this.rowsMax });
        for (const row of rows) {
          const tuple = decodeKey(row.key);
          const messageId = String(tuple[tuple.length - 1]);
          const dataKey = queue.keys.data(partition, messageId);
          const bytes = await view.get(dataKey);
          if (bytes === undefined) {
            writes.push({ kind: 'delete', key: row.key });
            continue;
          }
          const record = decodeMessageRecord(bytes);
          if (!isExpired(record, queue.meta.config.messageRetentionSeconds, nowMs)) continue;
          readKeys.push(dataKey);
          writes.push(...messageDeletes(queue.keys, record));
          deleted++;
        }
      }
      return { readKeys, writes, result: deleted };
    });
  }

  /** Dedup rows are keyed by id, not time: a cursor walks them a bounded page per sweep. */
  private async reapExpiredRows(name: string, family: 'dedup' | 'attempt', report: ReaperSweepReport): Promise<void> {
    const cursorKey = `${family}:${name}`;
    const { next, deleted } = await this.ctx.runner.run('ReapExpiredRows', async ({ view, nowMs }) => {
      const queue = await this.ctx.maybeLoadQueue(view, name);
      if (queue === undefined) return { readKeys: [], writes: [], result: { next: undefined, deleted: 0 } };
      const ranges: KeyRange[] = [];
      if (family === 'attempt') ranges.push(queue.keys.attemptPrefix());
      else for (let partition = 0; partition < queue.meta.partitionCount; partition++) ranges.push(queue.keys.dedupPrefix(partition));
      const whole: KeyRange = { gte: ranges[0]?.gte ?? new Uint8Array(0), lt: ranges[ranges.length - 1]?.lt ?? new Uint8Array(0) };
      const cursor = this.cursors.get(cursorKey);
      const gte = cursor !== undefined && Buffer.compare(cursor, whole.gte) > 0 ? cursor : whole.gte;
      const rows = await view.scan({ gte, lt: whole.lt }, { limit: this.rowsMax });
      const writes: TxnWrite[] = [];
      const readKeys: Uint8Array[] = [...queue.readKeys];
      for (const row of rows) {
        const expiresAtMs = family === 'dedup' ? decodeDedupRow(row.value).expiresAtMs : (JSON.parse(decoder.decode(row.value)) as { expiresAtMs: number }).expiresAtMs;
        if (expiresAtMs > nowMs) continue;
        readKeys.push(row.key);
        writes.push({ kind: 'delete', key: row.key });
      }
      const last = rows[rows.length - 1];
      const next = rows.length < this.rowsMax || last === undefined ? undefined : keySuccessor(last.key);
      return { readKeys, writes, result: { next, deleted: writes.length } };
    });
    if (family === 'dedup') report.dedupRowsDeleted += deleted;
    else report.attemptRowsDeleted += deleted;
    if (next === undefined) this.cursors.delete(cursorKey);
    else this.cursors.set(cursorKey, next);
  }
}
