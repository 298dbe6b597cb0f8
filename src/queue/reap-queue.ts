/**
 * The reaper's work on one live queue per tick, each step one bounded transaction that reads the
 * queue's meta and gen (so a purge or delete that commits first aborts it) and every row it
 * deletes or relies on (so a concurrent receive, visibility change or delete conflicts with it):
 * - messages past retention, found through their vis rows before the retention cutoff (a message's
 *   retention starts no later than its vis row's time, so every such row is an expired message's;
 *   message-store.ts) and through the age rows of messages that have one: a message whose
 *   visibility keeps being extended still expires, since neither row moves (docs/TRAPS.md, trap 5);
 * - FIFO dedup rows and ReceiveRequestAttemptId rows whose window is over;
 * - vis, age and group rows whose message data is gone or names another row, and state rows whose
 *   message data is gone (dangling).
 * Each step examines at most `rowsMax` rows (the dangling-row audit reaperAuditRowsPerQueuePerTickMax,
 * since each row costs a point read, and it steps once every reaperAuditIntervalMs); cursors carry
 * the walks over later ticks.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';
import { raftqLimits } from '../base/limits.js';
import { bytesEqual, keySuccessor } from '../storage/key-codec.js';
import type { KeyRange, KeyValue, ReadView, TxnWrite } from '../storage/txn.js';
import {
  parseMessageRowKey,
  type GenerationFamily,
  type GenerationKeys,
  type MessageRowKey,
} from './layout/key-layout.js';
import { isExpired, type MessageRecord } from './message-record.js';
import type { MessageStore, StoredMessage } from './message-store.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import type { ReaperSweepReport } from './reaper-report.js';
import { decodeAttemptRow } from './layout/attempt-row.js';
import { decodeDedupRow } from './layout/dedup-row.js';

/** Where the walks of one queue resume next tick. In memory only: a new leader starts them over. */
export interface QueueReapCursors {
  /** The partition the retention scan starts at; it rotates so every partition gets its turn. */
  retentionStartPartition: number;
  /** Next key per walked family (dedup, attempt, vis, age, group, state); absent: start of the range. */
  readonly rowCursors: Map<GenerationFamily, Uint8Array>;
  /** When the dangling-row audit of this queue steps next (executor ms; 0: at the next visit). */
  auditDueAtMs: number;
}

export function newQueueReapCursors(): QueueReapCursors {
  return { retentionStartPartition: 0, rowCursors: new Map(), auditDueAtMs: 0 };
}

const decoder = new TextDecoder();
const noWrites = { readKeys: [], writes: [] } as const;
/** Families whose rows are checked against their message (index rows and the state row). */
const auditedFamilies = ['vis', 'age', 'group', 'state'] as const;
type AuditedFamily = (typeof auditedFamilies)[number];
type IndexFamily = Exclude<AuditedFamily, 'state'>;

export class QueueReap {
  constructor(
    private readonly ctx: QueueContext,
    private readonly rowsMax: number,
  ) {}

  /** One bounded step of each kind for `name`; false if the queue has no meta (deleted meanwhile). */
  async reap(
    name: string,
    cursors: QueueReapCursors,
    report: ReaperSweepReport,
    isStopped: () => boolean,
  ): Promise<boolean> {
    if (!(await this.reapExpiredMessages(name, cursors, report))) return false;
    for (const family of ['dedup', 'attempt'] as const) {
      if (isStopped()) return true;
      await this.reapExpiredWindowRows(name, family, cursors, report);
    }
    await this.auditWhenDue(name, cursors, report, isStopped);
    return true;
  }

  /**
   * One step of the dangling-row audit of each audited family, once every reaperAuditIntervalMs:
   * dangling rows are an anomaly, and on a queue being consumed each step walks through the
   * deletion markers consumed messages leave (about 3 % of a consuming leader's main thread when
   * it stepped every tick). A step that finds dangling rows makes the next one due at once, so a
   * cluster of them is cleared at the pace of every tick.
   */
  private async auditWhenDue(
    name: string,
    cursors: QueueReapCursors,
    report: ReaperSweepReport,
    isStopped: () => boolean,
  ): Promise<void> {
    const nowMs = this.ctx.executor.nowMs();
    if (nowMs < cursors.auditDueAtMs) return;
    let deleted = 0;
    for (const family of auditedFamilies) {
      if (isStopped()) return;
      deleted += await this.reapDanglingRows(
        name,
        family,
        cursors,
        report,
        Math.min(this.rowsMax, raftqLimits.reaperAuditRowsPerQueuePerTickMax.value),
      );
    }
    cursors.auditDueAtMs = deleted > 0 ? 0 : nowMs + raftqLimits.reaperAuditIntervalMs.value;
  }

  private async reapExpiredMessages(
    name: string,
    cursors: QueueReapCursors,
    report: ReaperSweepReport,
  ): Promise<boolean> {
    const outcome = await this.ctx.runner.run(
      'ReapExpiredMessages',
      async ({ view, nowMs }) => {
        const queue = await this.ctx.maybeLoadQueue(view, name);
        if (queue === undefined) return { ...noWrites, result: undefined };
        const retentionSeconds = queue.meta.config.messageRetentionSeconds;
        // Age rows whose retention started before this cutoff are past retention at nowMs.
        const cutoffMs = nowMs - retentionSeconds * 1000 + 1;
        const readKeys: Uint8Array[] = [...queue.readKeys];
        const writes: TxnWrite[] = [];
        const counts = { messages: 0, rows: 0, dangling: 0 };
        const partitionCount = queue.meta.partitionCount;
        const first = cursors.retentionStartPartition % partitionCount;
        let examined = 0;
        /** Messages deleted by this step: one found by both its age row and its vis row is deleted once. */
        const deletedIds = new Set<string>();
        for (let i = 0; i < partitionCount && examined < this.rowsMax; i++) {
          const partition = (first + i) % partitionCount;
          for (const family of ['age', 'vis'] as const) {
            if (examined >= this.rowsMax) break;
            const range =
              family === 'age'
                ? queue.keys.ageRangeBefore(partition, cutoffMs)
                : queue.keys.visibleRange(partition, cutoffMs - 1);
            const rows = await view.scan(range, { limit: this.rowsMax - examined });
            examined += rows.length;
            const checked = await checkIndexRows(view, queue.messages, family, rows);
            for (const { row, dataKey, stateKey, message } of checked) {
              readKeys.push(dataKey);
              if (message === undefined) {
                // A vis row's currency depends on the receive state too.
                if (family === 'vis') readKeys.push(stateKey);
                writes.push({ kind: 'delete', key: row.key });
                counts.dangling++;
                continue;
              }
              const { record } = message;
              if (deletedIds.has(record.messageId)) continue;
              // A copy moved in by a leader whose clock was behind the original send's can have its
              // vis row a little before its retention start: it expires moments later.
              if (family === 'vis' && !isExpired(record, retentionSeconds, nowMs)) continue;
              assert(
                isExpired(record, retentionSeconds, nowMs),
                () => `age row of ${record.messageId} below the retention cutoff but the message is not expired`,
              );
              // The vis row to delete is named by the receive state: a receive that moves it conflicts.
              readKeys.push(stateKey);
              const deletes = queue.messages.deleteWrites(message);
              writes.push(...deletes);
              deletedIds.add(record.messageId);
              counts.messages++;
              counts.rows += deletes.length;
            }
          }
        }
        cursors.retentionStartPartition = first + 1;
        return { readKeys, writes, result: { ...counts, isBudgetUsed: examined >= this.rowsMax } };
      },
      { staleAnswerWithoutWritesIsAcceptable: true },
    );
    if (outcome === undefined) return false;
    report.expiredMessagesDeleted += outcome.messages;
    report.expiredRowsDeleted += outcome.rows;
    report.danglingRowsDeleted += outcome.dangling;
    if (outcome.isBudgetUsed) report.hasExpiredBacklog = true;
    return true;
  }

  /** Dedup and attempt rows are keyed by id, not time: a cursor walks them a bounded page per tick. */
  private async reapExpiredWindowRows(
    name: string,
    family: 'dedup' | 'attempt',
    cursors: QueueReapCursors,
    report: ReaperSweepReport,
  ): Promise<void> {
    const deleted = await this.walkFamily(
      name,
      family,
      cursors,
      this.rowsMax,
      'ReapExpiredRows',
      async (_view, _queue, rows, nowMs) =>
        rows
          .filter((row) => expiresAtMsOf(family, row.value) <= nowMs)
          .map((row) => ({ readKeys: [row.key], key: row.key })),
    );
    if (family === 'dedup') report.dedupRowsDeleted += deleted;
    else report.attemptRowsDeleted += deleted;
  }

  private async reapDanglingRows(
    name: string,
    family: AuditedFamily,
    cursors: QueueReapCursors,
    report: ReaperSweepReport,
    rowsMax: number,
  ): Promise<number> {
    const deleted = await this.walkFamily(
      name,
      family,
      cursors,
      rowsMax,
      'ReapDanglingRows',
      async (view, queue, rows) => {
        if (family === 'state') return selectStrayStateRows(view, queue.messages, rows);
        const checked = await checkIndexRows(view, queue.messages, family, rows);
        // Whether a vis row is current depends on the receive state; age and group rows only on the data row.
        return checked
          .filter((check) => check.message === undefined)
          .map((check) => ({
            readKeys: family === 'vis' ? [check.dataKey, check.stateKey] : [check.dataKey],
            key: check.row.key,
          }));
      },
    );
    report.danglingRowsDeleted += deleted;
    return deleted;
  }

  /**
   * One page of `family` rows of the live generation from the queue's cursor; `select` names the
   * rows to delete and the keys whose state justifies it (read, so a change to them conflicts).
   */
  private async walkFamily(
    name: string,
    family: GenerationFamily,
    cursors: QueueReapCursors,
    rowsMax: number,
    operation: string,
    select: (
      view: ReadView,
      queue: LoadedQueue,
      rows: KeyValue[],
      nowMs: number,
    ) => Promise<Array<{ readKeys: readonly Uint8Array[]; key: Uint8Array }>>,
  ): Promise<number> {
    const { next, deleted } = await this.ctx.runner.run(
      operation,
      async ({ view, nowMs }) => {
        const queue = await this.ctx.maybeLoadQueue(view, name);
        if (queue === undefined) return { ...noWrites, result: { next: undefined, deleted: 0 } };
        const whole = queue.keys.familyRange(family);
        const rows = await view.scan(resumeRange(whole, cursors.rowCursors.get(family)), { limit: rowsMax });
        const selected = await select(view, queue, rows, nowMs);
        const last = rows[rows.length - 1];
        const nextKey = rows.length < rowsMax || last === undefined ? undefined : keySuccessor(last.key);
        return {
          readKeys: [...queue.readKeys, ...selected.flatMap((s) => s.readKeys)],
          writes: selected.map((s): TxnWrite => ({ kind: 'delete', key: s.key })),
          result: { next: nextKey, deleted: selected.length },
        };
      },
      { staleAnswerWithoutWritesIsAcceptable: true },
    );
    if (next === undefined) cursors.rowCursors.delete(family);
    else cursors.rowCursors.set(family, next);
    return deleted;
  }
}

/** `whole` from `cursor` on, or all of it when the cursor is outside (another generation's). */
function resumeRange(whole: KeyRange, cursor: Uint8Array | undefined): KeyRange {
  const isInside =
    cursor !== undefined && Buffer.compare(cursor, whole.gte) > 0 && Buffer.compare(cursor, whole.lt) < 0;
  return { gte: isInside ? cursor : whole.gte, lt: whole.lt };
}

function expiresAtMsOf(family: 'dedup' | 'attempt', value: Uint8Array): number {
  return family === 'dedup' ? decodeDedupRow(value).expiresAtMs : decodeAttemptRow(value).expiresAtMs;
}

interface IndexRowCheck {
  readonly row: KeyValue;
  readonly dataKey: Uint8Array;
  readonly stateKey: Uint8Array;
  /** The message this row indexes, or undefined when its data is gone or names another row. */
  readonly message: StoredMessage | undefined;
}

/** Reads the message each index row names (concurrently) and whether it still names that row. */
async function checkIndexRows(
  view: ReadView,
  messages: MessageStore,
  family: IndexFamily,
  rows: readonly KeyValue[],
): Promise<IndexRowCheck[]> {
  return Promise.all(
    rows.map(async (row) => {
      const parsed = parseMessageRowKey(row.key);
      assert(parsed !== undefined && parsed.family === family, () => `a ${family} row of the wrong shape`);
      const { partition } = parsed;
      const messageId = parsed.family === 'group' ? decoder.decode(row.value) : parsed.messageId;
      const dataKey = messages.keys.data(partition, messageId);
      const stateKey = messages.keys.receiveState(partition, messageId);
      const message = await messages.read(view, partition, messageId);
      return {
        row,
        dataKey,
        stateKey,
        message: message !== undefined && isIndexedBy(message, parsed, row.key) ? message : undefined,
      };
    }),
  );
}

/**
 * State rows whose message data row is gone. Nothing writes a state row without reading the data
 * row in the same transaction, and every delete of a message deletes its state row, so such a row
 * is an anomaly (an older node's delete, a bug): the data key is read so that nothing that could
 * still need the row commits meanwhile.
 */
async function selectStrayStateRows(
  view: ReadView,
  messages: MessageStore,
  rows: readonly KeyValue[],
): Promise<Array<{ readKeys: readonly Uint8Array[]; key: Uint8Array }>> {
  const checked = await Promise.all(
    rows.map(async (row) => {
      const parsed = parseMessageRowKey(row.key);
      assert(parsed?.family === 'state', 'a state row of the wrong shape');
      const dataKey = messages.keys.data(parsed.partition, parsed.messageId);
      return { row, dataKey, isStray: (await view.get(dataKey)) === undefined };
    }),
  );
  return checked.filter((check) => check.isStray).map((check) => ({ readKeys: [check.dataKey], key: check.row.key }));
}

function isIndexedBy(message: StoredMessage, row: MessageRowKey, key: Uint8Array): boolean {
  const { record } = message;
  if (record.partition !== row.partition) return false;
  switch (row.family) {
    // The message's one vis row: where the send put it, or where a state row of the older layout moved it.
    case 'vis':
      return bytesEqual(message.visKey, key);
    case 'age':
      return record.retentionStartMs === row.retentionStartMs;
    case 'group':
      return record.messageGroupId === row.groupId && record.order === row.sequence;
    default:
      return false;
  }
}
