/**
 * DeleteMessage(Batch) and ChangeMessageVisibility(Batch): one transaction per request, each
 * entry judged on its own. A handle of another queue, generation or queue shape is invalid. As in
 * AWS:
 * - DeleteMessage with a stale handle of the live generation (the message was received again, or
 *   is gone) is a successful no-op, except on a FIFO queue, where the handle of a receive whose
 *   visibility timeout expired is refused ("the receipt handle has expired") and deletes nothing;
 * - ChangeMessageVisibility on a standard queue takes any handle of a message that still exists:
 *   one whose visibility timeout already expired, or one of an earlier receive; on a FIFO queue
 *   only the handle of the receive holding the message now.
 *
 * A FIFO refusal of a handle whose visibility timeout expired is written, not only answered: it
 * rewrites the message's receive state unchanged. One request can be planned twice at once (a
 * follower asks the next leader again while the first leader still commits its attempt, see
 * forwarding-queue-operations.ts); the attempt planned while the message was in flight read that
 * state, so if the refusal commits first the earlier attempt conflicts and is planned again (and
 * refused), and if the earlier attempt commits first the refusal conflicts and is planned again
 * (and finds the message gone). Either way no caller is told "expired" about a message that was
 * deleted or changed.
 */
import { sqsLimits } from '../base/limits.js';
import type { TxnWrite } from '../storage/txn.js';
import {
  InvalidParameterValueError,
  MessageNotInflightError,
  ReceiptHandleIsInvalidError,
  receiptHandleUnusable,
} from './errors.js';
import { isInFlight, type MessageRecord } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import type { ChangeVisibilityEntry, DeleteEntry, EntryFailure, EntrySuccess } from './queue-api.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { checkReceiptHandle, decodeReceiptHandle, type ReceiptHandleParts } from './receipt-handle.js';
import type { ReadView } from '../storage/txn.js';

type EntryOutcome = EntrySuccess | EntryFailure;

function parseHandle(queue: LoadedQueue, handle: string): ReceiptHandleParts {
  const parts = decodeReceiptHandle(handle);
  checkReceiptHandle(handle, parts, {
    name: queue.meta.name,
    generation: queue.meta.generation,
    partitionCount: queue.meta.partitionCount,
  });
  return parts;
}

/** The message a handle names and the keys its fate depends on (data and state rows, both read). */
async function readHandled(
  view: ReadView,
  queue: LoadedQueue,
  parts: ReceiptHandleParts,
): Promise<StoredMessage | undefined> {
  return queue.messages.read(view, parts.partition, parts.messageId);
}

/** The writes of a FIFO refusal: the message's receive state as it is, so that an attempt planned before it conflicts. */
function refusalWrites(queue: LoadedQueue, message: StoredMessage): TxnWrite[] {
  return queue.messages.receiveStateWrites(message, message.record);
}

export async function deleteMessages(
  ctx: QueueContext,
  name: string,
  entries: readonly DeleteEntry[],
): Promise<EntryOutcome[]> {
  return ctx.runner.run('DeleteMessage', async ({ view, nowMs }) => {
    const queue = await ctx.loadQueue(view, name);
    const readKeys = [...queue.readKeys];
    const writes: TxnWrite[] = [];
    const deleted = new Set<string>();
    const results: EntryOutcome[] = [];
    // Every handle is parsed first and the messages they name read together: one pass over the
    // rows, not a read per entry (the entries are then judged one by one, as before).
    const handles = entries.map((entry): ReceiptHandleParts | ReceiptHandleIsInvalidError => {
      try {
        return parseHandle(queue, entry.receiptHandle);
      } catch (error) {
        if (!(error instanceof ReceiptHandleIsInvalidError)) throw error;
        return error;
      }
    });
    const named = handles.filter(
      (parts): parts is ReceiptHandleParts => !(parts instanceof ReceiptHandleIsInvalidError),
    );
    // In the order of `named`: the nth parsed handle's message is the nth read.
    const read = await queue.messages.readNamed(view, named);
    let readAt = 0;
    entries.forEach((entry, i) => {
      const parts = handles[i] as ReceiptHandleParts | ReceiptHandleIsInvalidError;
      if (parts instanceof ReceiptHandleIsInvalidError) {
        results.push({ entryId: entry.entryId, error: parts });
        return;
      }
      const message = read[readAt++];
      if (deleted.has(parts.messageId) || message === undefined || message.record.receiptToken !== parts.token) {
        results.push({ entryId: entry.entryId });
        return;
      }
      readKeys.push(...message.readKeys);
      if (queue.meta.config.isFifo && !isInFlight(message.record, nowMs)) {
        results.push({ entryId: entry.entryId, error: receiptHandleUnusable(entry.receiptHandle, 'expired') });
        writes.push(...refusalWrites(queue, message));
        return;
      }
      results.push({ entryId: entry.entryId });
      deleted.add(parts.messageId);
      writes.push(...queue.messages.deleteWrites(message));
    });
    return { readKeys, writes, result: results };
  });
}

export async function changeMessageVisibility(
  ctx: QueueContext,
  name: string,
  entries: readonly ChangeVisibilityEntry[],
): Promise<EntryOutcome[]> {
  return ctx.runner.run('ChangeMessageVisibility', async ({ view, nowMs }) => {
    const queue = await ctx.loadQueue(view, name);
    const readKeys = [...queue.readKeys];
    const writes: TxnWrite[] = [];
    const changed = new Set<string>();
    const results: EntryOutcome[] = [];
    for (const entry of entries) {
      try {
        const parts = parseHandle(queue, entry.receiptHandle);
        const vtMax = sqsLimits.visibilityTimeoutSecondsMax.value;
        if (
          !Number.isInteger(entry.visibilityTimeoutSeconds) ||
          entry.visibilityTimeoutSeconds < 0 ||
          entry.visibilityTimeoutSeconds > vtMax
        ) {
          throw new InvalidParameterValueError('VisibilityTimeout', `must be an integer from 0 to ${vtMax}`);
        }
        if (changed.has(parts.messageId))
          throw new InvalidParameterValueError('ReceiptHandle', 'the batch changes this message twice');
        const message = await readHandled(view, queue, parts);
        const record = message?.record;
        const isFifo = queue.meta.config.isFifo;
        if (message === undefined || record === undefined || (isFifo && record.receiptToken !== parts.token))
          throw receiptHandleUnusable(entry.receiptHandle, 'gone');
        if (isFifo && !isInFlight(record, nowMs)) {
          readKeys.push(...message.readKeys);
          writes.push(...refusalWrites(queue, message));
          throw new MessageNotInflightError(record.messageId, 'its visibility timeout has already expired');
        }
        const visibleAtMs = nowMs + entry.visibilityTimeoutSeconds * 1000;
        // AWS counts the 12 hours in whole seconds: a timeout of 43200 set in the same second as
        // the receive is accepted, so the time already spent in flight is floored to seconds.
        const inFlightSeconds = Math.floor((nowMs - (record.claimedAtMs ?? nowMs)) / 1000);
        if (inFlightSeconds + entry.visibilityTimeoutSeconds > vtMax) {
          throw new InvalidParameterValueError(
            'VisibilityTimeout',
            'a message cannot stay invisible for more than 12 hours after it was received',
          );
        }
        const updated: MessageRecord = { ...record, visibleAtMs };
        changed.add(parts.messageId);
        readKeys.push(...message.readKeys);
        writes.push(...queue.messages.receiveStateWrites(message, updated));
        results.push({ entryId: entry.entryId });
      } catch (error) {
        if (!(
          error instanceof ReceiptHandleIsInvalidError ||
          error instanceof InvalidParameterValueError ||
          error instanceof MessageNotInflightError
        ))
          throw error;
        results.push({ entryId: entry.entryId, error });
      }
    }
    return { readKeys, writes, result: results };
  });
}
