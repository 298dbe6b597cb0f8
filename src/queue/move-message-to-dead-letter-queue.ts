/**
 * MoveMessageToDeadLetterQueue, a raftq extension (docs/COMPATIBILITY.md, "raftq extensions"):
 * dead-letters ONE in-flight message at once, named by its receipt handle, and records why.
 *
 * It is one transaction: the message leaves its queue and its copy enters the dead-letter queue
 * together, or neither happens, so a consumer that gives up on a message can never leave it in
 * both queues or in neither. The move itself is the receive path's (DeadLetterMover: the target is
 * re-checked, a FIFO target gets its next sequence number, the copy keeps its message id and gets
 * DeadLetterQueueSourceArn); this file adds only what a receive does not have: a receipt handle
 * that must still hold the message, and the cause, which the copy carries in the message attribute
 * `raftq.DeadLetterCause` (src/base/dead-letter-cause.ts).
 */
import {
  boundDeadLetterCause,
  deadLetterCauseAttributeName,
  encodeDeadLetterCauseRecord,
  type DeadLetterCause,
} from '../base/dead-letter-cause.js';
import { raftqLimits } from '../base/limits.js';
import type { TxnWrite } from '../storage/txn.js';
import { DeadLetterMover } from './dead-letter-move.js';
import { InvalidParameterValueError, MessageNotInflightError } from './errors.js';
import { isInFlight, type MessageRecord } from './message-record.js';
import type { QueueContext } from './queue-context.js';
import { checkReceiptHandle, decodeReceiptHandle } from './receipt-handle.js';
import { checkRedriveTarget } from './redrive-target.js';

export interface DeadLetterMoveInput {
  readonly receiptHandle: string;
  readonly cause: DeadLetterCause;
}

export interface DeadLetterMoveResult {
  /** The copy's id in the dead-letter queue: the message's own id. */
  readonly messageId: string;
  readonly deadLetterTargetArn: string;
}

export async function moveMessageToDeadLetterQueue(
  ctx: QueueContext,
  name: string,
  input: DeadLetterMoveInput,
): Promise<DeadLetterMoveResult> {
  checkCause(input.cause);
  return ctx.runner.run('MoveMessageToDeadLetterQueue', async ({ view, nowMs }) => {
    const source = await ctx.loadQueue(view, name);
    const parts = decodeReceiptHandle(input.receiptHandle);
    checkReceiptHandle(input.receiptHandle, parts, {
      name: source.meta.name,
      generation: source.meta.generation,
      partitionCount: source.meta.partitionCount,
    });
    const policy = source.meta.config.redrivePolicy;
    if (policy === undefined)
      throw new InvalidParameterValueError(
        'QueueUrl',
        `the queue ${name} has no RedrivePolicy, so it has no dead-letter queue to move the message to`,
      );
    const message = await source.messages.read(view, parts.partition, parts.messageId);
    const record = message?.record;
    // Only the receive that holds the message may condemn it: a stale handle means another
    // consumer has it now (or it is gone), and an expired one that anybody may receive it.
    if (message === undefined || record === undefined || record.receiptToken !== parts.token)
      throw new MessageNotInflightError(parts.messageId, 'the receipt handle no longer holds the message');
    if (!isInFlight(record, nowMs))
      throw new MessageNotInflightError(record.messageId, 'its visibility timeout has already expired');
    const check = await checkRedriveTarget(
      ctx,
      view,
      { name, isFifo: source.meta.config.isFifo },
      policy.deadLetterTargetArn,
    );
    if (check.kind === 'refused')
      throw new InvalidParameterValueError('QueueUrl', `the message cannot be dead-lettered: ${check.reason}`);
    const out: { readKeys: Uint8Array[]; writes: TxnWrite[] } = {
      readKeys: [...source.readKeys, ...message.readKeys],
      writes: [],
    };
    const mover = new DeadLetterMover(ctx, view, source, nowMs);
    const isMoved = await mover.maybeMove(
      { ...message, record: withCause(record, boundDeadLetterCause(input.cause), ctx.queueArn(name), nowMs) },
      out,
    );
    // The target was checked in this same view a moment ago; the mover sees what the check saw.
    if (!isMoved) throw new InvalidParameterValueError('QueueUrl', 'the dead-letter queue refused the message');
    return {
      readKeys: out.readKeys,
      writes: out.writes,
      result: { messageId: record.messageId, deadLetterTargetArn: policy.deadLetterTargetArn },
    };
  });
}

/** The record as its copy should look: the same rows (deletes use them) plus the cause attribute. */
function withCause(
  record: MessageRecord,
  cause: DeadLetterCause,
  sourceQueueArn: string,
  nowMs: number,
): MessageRecord {
  const value = encodeDeadLetterCauseRecord({
    cause,
    receiveCount: record.receiveCount,
    sourceQueueArn,
    sourceMessageId: record.messageId,
    deadLetteredAtMs: nowMs,
  });
  return {
    ...record,
    messageAttributes: {
      ...record.messageAttributes,
      [deadLetterCauseAttributeName]: { dataType: 'String', stringValue: value },
    },
  };
}

function checkCause(cause: DeadLetterCause): void {
  const bounded = boundDeadLetterCause(cause);
  if (cause.name === '') throw new InvalidParameterValueError('Cause.Name', 'must not be empty');
  if (bounded.name !== cause.name)
    throw new InvalidParameterValueError(
      'Cause.Name',
      `must be at most ${raftqLimits.deadLetterCauseNameCharsMax.value} characters`,
    );
  if (bounded.code !== cause.code && cause.code !== '')
    throw new InvalidParameterValueError(
      'Cause.Code',
      `must be at most ${raftqLimits.deadLetterCauseCodeCharsMax.value} characters`,
    );
  if (bounded.message !== cause.message)
    throw new InvalidParameterValueError(
      'Cause.Message',
      `must be at most ${raftqLimits.deadLetterCauseMessageCharsMax.value} characters`,
    );
}
