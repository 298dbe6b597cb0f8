/**
 * Dead-letters one received message with its cause, the best way the endpoint allows.
 *
 * On raftq: the MoveMessageToDeadLetterQueue extension, one transaction — the message is in the
 * source queue or in the dead-letter queue, never both, never neither. It is sent as a
 * ChangeMessageVisibility request whose action and body are rewritten just before signing, so it
 * travels with the client's own endpoint, credentials, signing and retries.
 *
 * On a plain SQS, which answers that the action is unknown (detected once per SQSClient and
 * remembered): copy-then-delete. SendMessage of a copy (body, attributes, group, and the cause as
 * the `raftq.DeadLetterCause` attribute) to the dead-letter queue, then DeleteMessage. This MAY
 * DUPLICATE: if the process dies, or the delete fails, between the two, the copy stays in the
 * dead-letter queue and the original is delivered again. It never loses the message. A message
 * that already has 10 attributes is copied without the cause, which SQS could not store.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  SendMessageCommand,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  deadLetterCauseAttributeName,
  encodeDeadLetterCauseRecord,
  type DeadLetterCause,
} from '../base/dead-letter-cause.js';
import { sqsLimits } from '../base/limits.js';
import type { ReceivedMessage } from './delivery.js';
import { queueUrlOfArn, type QueueSettings } from './queue-settings.js';
import { isUnknownActionFailure } from './sqs-failure.js';

export const moveMessageToDeadLetterQueueAction = 'MoveMessageToDeadLetterQueue';

/** Per client: true once the extension answered, false once the endpoint said it does not know it. */
const extensionSupport = new WeakMap<SQSClient, boolean>();

export interface DeadLetterMoveRequest {
  readonly source: QueueSettings;
  readonly message: ReceivedMessage;
  readonly receiptHandle: string;
  readonly receiveCount: number;
  readonly cause: DeadLetterCause;
}

export type DeadLetterMoveOutcome = 'moved' | 'copied-then-deleted';

export async function moveToDeadLetterQueue(
  client: SQSClient,
  request: DeadLetterMoveRequest,
): Promise<DeadLetterMoveOutcome> {
  if (request.source.redrivePolicy === undefined)
    throw new Error(`The queue ${request.source.queueUrl} has no RedrivePolicy`);
  if (extensionSupport.get(client) !== false) {
    try {
      await sendExtension(client, request);
      extensionSupport.set(client, true);
      return 'moved';
    } catch (error) {
      if (!isUnknownActionFailure(error) || extensionSupport.get(client) === true) throw error;
      extensionSupport.set(client, false);
    }
  }
  await copyThenDelete(client, request);
  return 'copied-then-deleted';
}

/** Whether this client's endpoint was found to lack the extension (undefined: not tried yet). */
export function hasDeadLetterExtension(client: SQSClient): boolean | undefined {
  return extensionSupport.get(client);
}

async function sendExtension(client: SQSClient, request: DeadLetterMoveRequest): Promise<void> {
  const command = new ChangeMessageVisibilityCommand({
    QueueUrl: request.source.queueUrl,
    ReceiptHandle: request.receiptHandle,
    VisibilityTimeout: 0,
  });
  const cause =
    request.cause.code === undefined
      ? { Name: request.cause.name, Message: request.cause.message }
      : { Name: request.cause.name, Code: request.cause.code, Message: request.cause.message };
  command.middlewareStack.add(
    (next) => async (args) => {
      const httpRequest = args.request as { headers: Record<string, string>; body: unknown };
      const body = JSON.parse(bodyText(httpRequest.body)) as Record<string, unknown>;
      delete body['VisibilityTimeout'];
      const text = JSON.stringify({ ...body, Cause: cause });
      httpRequest.headers['x-amz-target'] = `AmazonSQS.${moveMessageToDeadLetterQueueAction}`;
      httpRequest.body = text;
      if (httpRequest.headers['content-length'] !== undefined)
        httpRequest.headers['content-length'] = String(Buffer.byteLength(text, 'utf8'));
      return next(args);
    },
    { step: 'build', priority: 'high', name: 'raftqMoveMessageToDeadLetterQueue' },
  );
  await client.send(command);
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return '{}';
}

async function copyThenDelete(client: SQSClient, request: DeadLetterMoveRequest): Promise<void> {
  const policy = request.source.redrivePolicy;
  if (policy === undefined) throw new Error(`The queue ${request.source.queueUrl} has no RedrivePolicy`);
  const deadLetterQueueUrl = await queueUrlOfArn(client, policy.deadLetterTargetArn);
  const { message } = request;
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.messageAttributes)) {
    if (name === deadLetterCauseAttributeName) continue;
    attributes[name] = {
      DataType: value.DataType,
      ...(value.StringValue !== undefined ? { StringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { BinaryValue: value.BinaryValue } : {}),
    };
  }
  if (Object.keys(attributes).length < sqsLimits.messageAttributesMax.value) {
    const record = {
      cause: request.cause,
      receiveCount: request.receiveCount,
      sourceQueueArn: request.source.queueArn,
      sourceMessageId: message.messageId,
      deadLetteredAtMs: Date.now(),
    };
    attributes[deadLetterCauseAttributeName] = { DataType: 'String', StringValue: encodeDeadLetterCauseRecord(record) };
  }
  const traceHeader = message.attributes['AWSTraceHeader'];
  await client.send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: message.body,
      ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
      ...(traceHeader !== undefined
        ? { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: traceHeader } } }
        : {}),
      // A repeat of this copy within SQS's deduplication window is dropped by a FIFO queue.
      ...(request.source.isFifo
        ? { MessageGroupId: message.messageGroupId ?? 'dead-letters', MessageDeduplicationId: message.messageId }
        : {}),
    }),
  );
  await client.send(
    new DeleteMessageCommand({ QueueUrl: request.source.queueUrl, ReceiptHandle: request.receiptHandle }),
  );
}
