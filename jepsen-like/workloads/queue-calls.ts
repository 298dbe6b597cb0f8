import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type BatchResultErrorEntry,
} from '@aws-sdk/client-sqs';
import type {
  BatchEntryResult,
  BatchResult,
  ChangeVisibilityInvoke,
  DeleteInvoke,
  SendInvoke,
  SendResult,
} from '../checkers/queue-ops.js';
import type { SqsEndpoint } from './sqs-endpoint.js';

/**
 * The SQS calls of the queue workloads, each one request whose answer becomes the value the
 * history records (queue-ops.ts describes the values).
 */

export async function sendOne(e: SqsEndpoint, args: SendInvoke): Promise<SendResult> {
  const out = await e.client.send(
    new SendMessageCommand({
      QueueUrl: e.queueUrl(args.queue),
      MessageBody: args.body,
      ...(args.groupId === undefined ? {} : { MessageGroupId: args.groupId }),
      ...(args.dedupId === undefined ? {} : { MessageDeduplicationId: args.dedupId }),
    }),
    e.callOptions(),
  );
  return {
    messageId: out.MessageId ?? '',
    ...(out.SequenceNumber === undefined ? {} : { sequenceNumber: out.SequenceNumber }),
  };
}

export async function sendBatch(
  e: SqsEndpoint,
  queue: string,
  entries: readonly SendInvoke[],
): Promise<BatchResult<SendResult>> {
  const out = await e.client.send(
    new SendMessageBatchCommand({
      QueueUrl: e.queueUrl(queue),
      Entries: entries.map((args, i) => ({
        Id: String(i),
        MessageBody: args.body,
        ...(args.groupId === undefined ? {} : { MessageGroupId: args.groupId }),
        ...(args.dedupId === undefined ? {} : { MessageDeduplicationId: args.dedupId }),
      })),
    }),
    e.callOptions(),
  );
  const ok = new Map(
    (out.Successful ?? []).map((s) => [
      s.Id,
      { messageId: s.MessageId ?? '', ...(s.SequenceNumber === undefined ? {} : { sequenceNumber: s.SequenceNumber }) },
    ]),
  );
  return { entries: entries.map((_, i) => entryResult(ok.get(String(i)), out.Failed, i)) };
}

export async function deleteOne(e: SqsEndpoint, args: DeleteInvoke): Promise<Record<string, never>> {
  await e.client.send(
    new DeleteMessageCommand({ QueueUrl: e.queueUrl(args.queue), ReceiptHandle: args.receiptHandle }),
    e.callOptions(),
  );
  return {};
}

export async function deleteBatch(
  e: SqsEndpoint,
  queue: string,
  entries: readonly DeleteInvoke[],
): Promise<BatchResult<Record<string, never>>> {
  const out = await e.client.send(
    new DeleteMessageBatchCommand({
      QueueUrl: e.queueUrl(queue),
      Entries: entries.map((args, i) => ({ Id: String(i), ReceiptHandle: args.receiptHandle })),
    }),
    e.callOptions(),
  );
  const ok = new Set((out.Successful ?? []).map((s) => s.Id));
  return { entries: entries.map((_, i) => entryResult(ok.has(String(i)) ? {} : undefined, out.Failed, i)) };
}

export async function changeVisibility(e: SqsEndpoint, args: ChangeVisibilityInvoke): Promise<Record<string, never>> {
  await e.client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: e.queueUrl(args.queue),
      ReceiptHandle: args.receiptHandle,
      VisibilityTimeout: args.visibilityTimeoutSeconds,
    }),
    e.callOptions(),
  );
  return {};
}

/** An entry the answer names neither as successful nor as failed is recorded as an unknown failure. */
function entryResult<T>(
  ok: T | undefined,
  failed: readonly BatchResultErrorEntry[] | undefined,
  i: number,
): BatchEntryResult<T> {
  if (ok !== undefined) return { ok };
  const failure = (failed ?? []).find((f) => f.Id === String(i));
  return { failed: { code: failure?.Code ?? 'MissingFromAnswer', senderFault: failure?.SenderFault === true } };
}
