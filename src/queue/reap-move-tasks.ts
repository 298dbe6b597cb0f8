/**
 * The reaper's cleanup of message move task rows: a finished task (COMPLETED, CANCELLED, FAILED)
 * goes once it is older than moveTaskRetentionMs, or as soon as moveTasksKeptPerSourceMax newer
 * tasks of the same source exist (ListMessageMoveTasks can no longer show it). A running task is
 * never touched: stepMoveTasks() ends it. A cursor walks the rows a bounded page per tick.
 */
import { raftqLimits } from '../base/limits.js';
import { keySuccessor } from '../storage/key-codec.js';
import type { TxnWrite } from '../storage/txn.js';
import { globalKeyParts, globalKeys } from './layout/key-layout.js';
import { decodeTask } from './layout/move-task-row.js';
import type { QueueContext } from './queue-context.js';

export class MoveTaskReap {
  private cursor: Uint8Array | undefined;

  constructor(
    private readonly ctx: QueueContext,
    private readonly rowsMax: number,
  ) {}

  /** One bounded step; returns the task rows deleted. */
  async step(): Promise<number> {
    const { next, deleted } = await this.ctx.runner.run(
      'ReapMoveTasks',
      async ({ view, nowMs }) => {
        const whole = globalKeys.allMoveTasksRange();
        const rows = await view.scan({ gte: this.cursor ?? whole.gte, lt: whole.lt }, { limit: this.rowsMax });
        const keptMax = raftqLimits.moveTasksKeptPerSourceMax.value;
        const readKeys: Uint8Array[] = [];
        const writes: TxnWrite[] = [];
        for (const row of rows) {
          const task = decodeTask(row.value);
          if (task.status === 'RUNNING' || task.status === 'CANCELLING') continue;
          const isOld = task.lastStepAtMs + raftqLimits.moveTaskRetentionMs.value <= nowMs;
          // Task ids sort by start time: the rows after this one in its source's range are newer.
          const sourceArn = globalKeyParts.moveTaskSourceArn(row.key);
          const isBeyondKept =
            !isOld &&
            (
              await view.scan(
                { gte: keySuccessor(row.key), lt: globalKeys.moveTaskRange(sourceArn).lt },
                { limit: keptMax },
              )
            ).length >= keptMax;
          if (!isOld && !isBeyondKept) continue;
          readKeys.push(row.key);
          writes.push({ kind: 'delete', key: row.key });
        }
        const last = rows[rows.length - 1];
        const nextKey = rows.length < this.rowsMax || last === undefined ? undefined : keySuccessor(last.key);
        return { readKeys, writes, result: { next: nextKey, deleted: writes.length } };
      },
      { staleAnswerWithoutWritesIsAcceptable: true },
    );
    this.cursor = next;
    return deleted;
  }
}
