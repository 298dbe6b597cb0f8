/**
 * Message move tasks (StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask). A task
 * is a replicated row ("move", sourceArn, taskId); the leader advances every running task with
 * `step()` on its background tick, each step one transaction that moves a bounded batch of
 * visible messages and updates the task's counts, so a task survives a leader change and resumes
 * where the last committed step left it. Destinations are checked at every step (they can be
 * deleted or recreated in between).
 */
import { Buffer } from 'node:buffer';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { keySuccessor } from '../storage/key-codec.js';
import type { ReadView, TxnWrite } from '../storage/txn.js';
import { InvalidParameterValueError, ResourceNotFoundError, UnsupportedOperationError } from './errors.js';
import { globalKeys, parseMessageRowKey, queueKeys } from './layout/key-layout.js';
import { isExpired, messageRecord, type MessageRecord } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import { countMessages } from './message-counts.js';
import { partitionOfGroup } from './partitioning.js';
import type { MoveTaskInfo, MoveTaskStatus, StartMoveTaskOptions } from './queue-api.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { parseQueueArn } from './redrive-policy.js';
import { decodeTask, encodeTask, type MoveTaskRecord } from './layout/move-task-row.js';
import {
  decodeSequenceCounter,
  encodeSequenceCounter,
  formatSequenceNumber,
  sequenceNumberOf,
} from './layout/fifo-sequence.js';

const messagesPerStepMax = 100;

function taskHandleOf(sourceArn: string, taskId: string): string {
  // Standard base64 of a JSON document, as AWS hands it out: tools decode it to find the source.
  return Buffer.from(JSON.stringify({ taskId, sourceArn }), 'utf8').toString('base64');
}

function parseTaskHandle(handle: string): { sourceArn: string; taskId: string } {
  try {
    // Node's base64 decoder also reads the URL-safe alphabet of handles issued before.
    const parsed = JSON.parse(Buffer.from(handle, 'base64').toString('utf8')) as {
      sourceArn?: unknown;
      taskId?: unknown;
    };
    if (typeof parsed.sourceArn === 'string' && typeof parsed.taskId === 'string')
      return { sourceArn: parsed.sourceArn, taskId: parsed.taskId };
  } catch {
    // Falls through to the not-found error below: a handle we did not issue names no task.
  }
  throw new ResourceNotFoundError(`message move task ${handle}`);
}

function publicInfo(task: MoveTaskRecord): MoveTaskInfo {
  const { taskId: _taskId, lastStepAtMs: _last, ...info } = task;
  return info;
}

export class MoveTasks {
  constructor(private readonly ctx: QueueContext) {}

  private async loadByArn(view: ReadView, arn: string, parameterName: string): Promise<LoadedQueue> {
    const parts = parseQueueArn(arn);
    if (parts === undefined) throw new InvalidParameterValueError(parameterName, 'not a queue ARN');
    const queue =
      parts.accountId === this.ctx.accountId && parts.region === this.ctx.region
        ? await this.ctx.maybeLoadQueue(view, parts.queueName)
        : undefined;
    if (queue === undefined) throw new ResourceNotFoundError(arn);
    return queue;
  }

  async start(options: StartMoveTaskOptions): Promise<{ taskHandle: string }> {
    const rateMax = sqsLimits.moveTaskMessagesPerSecondMax.value;
    const rate = options.maxNumberOfMessagesPerSecond;
    if (rate !== undefined && (!Number.isInteger(rate) || rate < 1 || rate > rateMax)) {
      throw new InvalidParameterValueError('MaxNumberOfMessagesPerSecond', `must be an integer from 1 to ${rateMax}`);
    }
    const taskSuffix = this.ctx.newId();
    return this.ctx.runner.run('StartMessageMoveTask', async ({ view, nowMs }) => {
      const source = await this.loadByArn(view, options.sourceArn, 'SourceArn');
      const readKeys = [...source.readKeys];
      const sources = await view.scan(globalKeys.deadLetterSourceRange(source.meta.name), { limit: 1 });
      if (sources.length === 0)
        throw new UnsupportedOperationError(
          'StartMessageMoveTask',
          'the source queue is not the dead-letter queue of any queue',
        );
      if (options.destinationArn !== undefined) {
        const destination = await this.loadByArn(view, options.destinationArn, 'DestinationArn');
        if (destination.meta.config.isFifo !== source.meta.config.isFifo) {
          throw new InvalidParameterValueError(
            'DestinationArn',
            'the destination must be of the same queue type as the source',
          );
        }
        readKeys.push(...destination.readKeys);
      }
      const existing = await view.scan(globalKeys.moveTaskRange(options.sourceArn), { limit: 1_000 });
      for (const row of existing) {
        readKeys.push(row.key);
        if (decodeTask(row.value).status === 'RUNNING') {
          throw new UnsupportedOperationError(
            'StartMessageMoveTask',
            'a message move task is already running on this source',
          );
        }
      }
      // Ids that sort by start time make "most recent first" a reverse scan.
      const taskId = `${String(nowMs).padStart(15, '0')}-${taskSuffix}`;
      const toMove = await countVisible(view, source, nowMs);
      const task: MoveTaskRecord = {
        taskId,
        taskHandle: taskHandleOf(options.sourceArn, taskId),
        status: 'RUNNING',
        sourceArn: options.sourceArn,
        ...(options.destinationArn !== undefined ? { destinationArn: options.destinationArn } : {}),
        ...(rate !== undefined ? { maxNumberOfMessagesPerSecond: rate } : {}),
        approximateNumberOfMessagesMoved: 0,
        approximateNumberOfMessagesToMove: toMove,
        startedTimestampMs: nowMs,
        lastStepAtMs: nowMs,
      };
      const key = globalKeys.moveTask(options.sourceArn, taskId);
      return {
        readKeys: [...readKeys, key],
        writes: [{ kind: 'put', key, value: encodeTask(task) }],
        result: { taskHandle: task.taskHandle },
      };
    });
  }

  async list(options: { sourceArn: string; maxResults?: number }): Promise<MoveTaskInfo[]> {
    const limit = Math.max(1, Math.min(options.maxResults ?? 1, 10));
    return this.ctx.runner.read(async (view) => {
      await this.loadByArn(view, options.sourceArn, 'SourceArn');
      const rows = await view.scan(globalKeys.moveTaskRange(options.sourceArn), { limit, reverse: true });
      return rows.map((row) => publicInfo(decodeTask(row.value)));
    });
  }

  async cancel(taskHandle: string): Promise<{ approximateNumberOfMessagesMoved: number }> {
    const { sourceArn, taskId } = parseTaskHandle(taskHandle);
    const key = globalKeys.moveTask(sourceArn, taskId);
    return this.ctx.runner.run('CancelMessageMoveTask', async ({ view }) => {
      const bytes = await view.get(key);
      if (bytes === undefined) throw new ResourceNotFoundError(`message move task ${taskHandle}`);
      const task = decodeTask(bytes);
      if (task.status !== 'RUNNING')
        throw new UnsupportedOperationError('CancelMessageMoveTask', `the task is ${task.status}, not RUNNING`);
      const cancelled: MoveTaskRecord = { ...task, status: 'CANCELLED' };
      return {
        readKeys: [key],
        writes: [{ kind: 'put', key, value: encodeTask(cancelled) }],
        result: { approximateNumberOfMessagesMoved: task.approximateNumberOfMessagesMoved },
      };
    });
  }

  /** Advances every running task by one bounded batch. Returns the messages moved. */
  async step(): Promise<number> {
    const running = await this.ctx.runner.read(async (view) => {
      const rows = await view.scan(globalKeys.allMoveTasksRange(), { limit: Number.MAX_SAFE_INTEGER });
      return rows.filter((row) => decodeTask(row.value).status === 'RUNNING').map((row) => row.key);
    });
    let moved = 0;
    for (const key of running) moved += await this.stepTask(key);
    return moved;
  }

  private async stepTask(key: Uint8Array): Promise<number> {
    return this.ctx.runner.run('MessageMoveTaskStep', async ({ view, nowMs }) => {
      const bytes = await view.get(key);
      if (bytes === undefined) return { readKeys: [], writes: [], result: 0 };
      const task = decodeTask(bytes);
      if (task.status !== 'RUNNING') return { readKeys: [], writes: [], result: 0 };
      const finish = (
        status: MoveTaskStatus,
        extra: Partial<MoveTaskRecord>,
        writes: TxnWrite[],
        readKeys: Uint8Array[],
        moved: number,
      ) => ({
        readKeys: [key, ...readKeys],
        writes: [
          ...writes,
          { kind: 'put' as const, key, value: encodeTask({ ...task, ...extra, status, lastStepAtMs: nowMs }) },
        ],
        result: moved,
      });
      const sourceName = parseQueueArn(task.sourceArn)?.queueName ?? '';
      const source = await this.ctx.maybeLoadQueue(view, sourceName);
      if (source === undefined)
        return finish('FAILED', { failureReason: 'the source queue no longer exists' }, [], [], 0);
      const rate = task.maxNumberOfMessagesPerSecond ?? sqsLimits.moveTaskMessagesPerSecondMax.value;
      const elapsedMs = Math.min(Math.max(nowMs - task.lastStepAtMs, 0), 1_000);
      const budget = Math.max(1, Math.min(messagesPerStepMax, Math.floor((rate * elapsedMs) / 1000)));
      const batch = await visibleMessages(view, source, nowMs, budget);
      const readKeys = [...source.readKeys];
      const writes: TxnWrite[] = [];
      const destinations = new Map<string, LoadedQueue | undefined>();
      const counters = new Map<string, { key: Uint8Array; counter: bigint }>();
      for (const message of batch) {
        const { record } = message;
        const destinationArn = task.destinationArn ?? record.deadLetterSourceArn;
        const destinationName = destinationArn === undefined ? undefined : parseQueueArn(destinationArn)?.queueName;
        if (destinationName === undefined) {
          return finish(
            'FAILED',
            { failureReason: `message ${record.messageId} has no source queue to return to` },
            [],
            [],
            0,
          );
        }
        if (!destinations.has(destinationName)) {
          const loaded = await this.ctx.maybeLoadQueue(view, destinationName);
          destinations.set(destinationName, loaded);
          if (loaded !== undefined) readKeys.push(...loaded.readKeys);
        }
        const destination = destinations.get(destinationName);
        if (destination === undefined || destination.meta.config.isFifo !== source.meta.config.isFifo) {
          return finish(
            'FAILED',
            { failureReason: `the destination queue ${destinationName} does not exist or is of another type` },
            [],
            [],
            0,
          );
        }
        readKeys.push(...message.readKeys);
        writes.push(...source.messages.deleteWrites(message));
        writes.push(...(await this.copyInto(view, destination, record, nowMs, counters, readKeys)));
      }
      for (const { key: counterKey, counter } of counters.values())
        writes.push({ kind: 'put', key: counterKey, value: encodeSequenceCounter(counter) });
      const moved = task.approximateNumberOfMessagesMoved + batch.length;
      const isDone = batch.length < budget;
      return finish(
        isDone ? 'COMPLETED' : 'RUNNING',
        { approximateNumberOfMessagesMoved: moved },
        writes,
        readKeys,
        batch.length,
      );
    });
  }

  private async copyInto(
    view: ReadView,
    destination: LoadedQueue,
    record: MessageRecord,
    nowMs: number,
    counters: Map<string, { key: Uint8Array; counter: bigint }>,
    readKeys: Uint8Array[],
  ): Promise<TxnWrite[]> {
    const partition = partitionOfGroup(record.messageGroupId, destination.meta.partitionCount);
    let order = record.order;
    let sequenceNumber: string | undefined;
    if (destination.meta.config.isFifo) {
      const counterKey = queueKeys.sequence(destination.meta.name, partition);
      const id = `${destination.meta.name}/${partition}`;
      let counter = counters.get(id)?.counter;
      if (counter === undefined) {
        counter = decodeSequenceCounter(await view.get(counterKey));
        readKeys.push(counterKey);
      }
      counter += 1n;
      counters.set(id, { key: counterKey, counter });
      order = sequenceNumberOf(counter, partition);
      sequenceNumber = formatSequenceNumber(order);
    }
    // A moved message is a new delivery: no receive fields, no dead-letter source, its own sequence.
    const copy = messageRecord({
      ...record,
      partition,
      visibleAtMs: nowMs,
      order,
      receiveCount: 0,
      firstReceiveAtMs: undefined,
      claimedAtMs: undefined,
      receiptToken: undefined,
      sequenceNumber,
      deadLetterSourceArn: undefined,
    });
    return destination.messages.insertWrites(copy);
  }
}

async function visibleMessages(
  view: ReadView,
  queue: LoadedQueue,
  nowMs: number,
  limit: number,
): Promise<StoredMessage[]> {
  const found: StoredMessage[] = [];
  const rowsMax = raftqLimits.receiveScanRowsMax.value;
  let examined = 0;
  for (let partition = 0; partition < queue.meta.partitionCount && found.length < limit; partition++) {
    const range = queue.keys.visibleRange(partition, nowMs);
    let gte = range.gte;
    while (found.length < limit && examined < rowsMax) {
      const page = await view.scan({ gte, lt: range.lt }, { limit: raftqLimits.receiveScanPageRows.value });
      for (const row of page) {
        examined++;
        const visRow = parseMessageRowKey(row.key);
        const message =
          visRow?.family === 'vis' ? await queue.messages.read(view, partition, visRow.messageId) : undefined;
        if (message === undefined) continue;
        // A vis row stays where the send put it: whether the message is visible now is its receive state's to say.
        if (
          message.record.visibleAtMs <= nowMs &&
          !isExpired(message.record, queue.meta.config.messageRetentionSeconds, nowMs)
        )
          found.push(message);
        if (found.length >= limit) break;
      }
      const last = page[page.length - 1];
      if (last === undefined || page.length < raftqLimits.receiveScanPageRows.value) break;
      gte = keySuccessor(last.key);
    }
  }
  return found;
}

async function countVisible(view: ReadView, queue: LoadedQueue, nowMs: number): Promise<number> {
  return (
    await countMessages(view, queue.keys, queue.meta.partitionCount, nowMs, queue.meta.config.messageRetentionSeconds)
  ).visible;
}
