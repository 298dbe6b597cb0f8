/**
 * replayDeadLetter(): puts one dead letter back on its source queue, once whatever failed it is
 * fixed. It is sent as a new message — same body and attributes, its receive count starting again
 * from zero, so it gets every delivery again — and then deleted from the dead-letter queue.
 *
 * SQS gives a sent message a new id, so the replayed message's id differs from the dead letter's.
 * The send comes before the delete: a failure between them leaves the message in both queues
 * (at least once), never in neither. A FIFO replay keeps its group and gets a deduplication id of
 * its own, so that it is never mistaken for the original within SQS's deduplication window.
 */
import {
  DeleteMessageCommand,
  SendMessageCommand,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { deadLetterCauseAttributeName } from '../base/dead-letter-cause.js';
import { scanDeadLetterQueue } from './dead-letter-scan.js';
import { isFromSource, locateDeadLetterQueue, withClient } from './dead-letters.js';
import { DeadLetterNotFoundError } from './errors.js';

export interface DeadLetterTarget {
  /** The SOURCE queue the dead letter came from. */
  readonly queueUrl: string;
  /** DeadLetter.messageId. */
  readonly messageId: string;
  readonly client?: SQSClient;
}

export async function replayDeadLetter(options: DeadLetterTarget): Promise<void> {
  await withClient(options.client, async (client) => {
    const { source, deadLetterQueueUrl } = await locateDeadLetterQueue(client, options.queueUrl);
    const scan = await scanDeadLetterQueue(client, deadLetterQueueUrl, {
      take: (m) => m.MessageId === options.messageId && isFromSource(m, source),
    });
    const [message] = scan.taken;
    if (message === undefined)
      throw new DeadLetterNotFoundError(options.queueUrl, options.messageId, scan.scannedCount);
    const attributes: Record<string, MessageAttributeValue> = {};
    for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
      if (name === deadLetterCauseAttributeName) continue;
      attributes[name] = {
        DataType: value.DataType,
        ...(value.StringValue !== undefined ? { StringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { BinaryValue: value.BinaryValue } : {}),
      };
    }
    const groupId = message.Attributes?.['MessageGroupId'];
    await client.send(
      new SendMessageCommand({
        QueueUrl: options.queueUrl,
        MessageBody: message.Body ?? '',
        ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
        ...(source.isFifo
          ? {
              MessageGroupId: groupId ?? 'replayed',
              MessageDeduplicationId: `replay-${options.messageId}-${Date.now()}`,
            }
          : {}),
      }),
    );
    await client.send(
      new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle ?? '' }),
    );
  });
}
