/**
 * The row of a message move task ("move", sourceArn, taskId): the task's public state and what
 * its steps need. Stored as JSON (one per task, rewritten by each step); read through
 * StoredJsonRow, which checks every field.
 */
import type { MoveTaskInfo, MoveTaskStatus } from '../queue-api.js';
import { StoredJsonRow } from './stored-json-row.js';

export interface MoveTaskRecord extends MoveTaskInfo {
  readonly taskId: string;
  readonly lastStepAtMs: number;
}

const encoder = new TextEncoder();

export function encodeTask(task: MoveTaskRecord): Uint8Array {
  return encoder.encode(JSON.stringify(task));
}

const taskStatuses: readonly MoveTaskStatus[] = ['RUNNING', 'COMPLETED', 'CANCELLING', 'CANCELLED', 'FAILED'];

export function decodeTask(bytes: Uint8Array): MoveTaskRecord {
  const row = StoredJsonRow.parse(bytes, 'message move task');
  const destinationArn = row.optionalString('destinationArn');
  const maxNumberOfMessagesPerSecond = row.optionalNumber('maxNumberOfMessagesPerSecond');
  const approximateNumberOfMessagesToMove = row.optionalNumber('approximateNumberOfMessagesToMove');
  const failureReason = row.optionalString('failureReason');
  return {
    taskHandle: row.string('taskHandle'),
    status: row.oneOf('status', taskStatuses),
    sourceArn: row.string('sourceArn'),
    ...(destinationArn === undefined ? {} : { destinationArn }),
    ...(maxNumberOfMessagesPerSecond === undefined ? {} : { maxNumberOfMessagesPerSecond }),
    approximateNumberOfMessagesMoved: row.number('approximateNumberOfMessagesMoved'),
    ...(approximateNumberOfMessagesToMove === undefined ? {} : { approximateNumberOfMessagesToMove }),
    ...(failureReason === undefined ? {} : { failureReason }),
    startedTimestampMs: row.number('startedTimestampMs'),
    taskId: row.string('taskId'),
    lastStepAtMs: row.number('lastStepAtMs'),
  };
}
