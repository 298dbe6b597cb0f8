import { SendMessageBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveredMessage, FifoOrderTracker } from './fifo-order-tracker.js';

/** One message to send: its group and its body, which also serves as its deduplication id. */
export interface FifoEntry {
  readonly group: string;
  readonly body: string;
}

/**
 * Sends `entries` in order, ten per SendMessageBatch as a producer of many groups would, and notes
 * each sent message with the SequenceNumber the queue returned. A failed entry throws: the order
 * checks that follow would be meaningless with a message missing.
 */
export async function sendFifoBatches(
  sqs: SQSClient,
  queueUrl: string,
  entries: readonly FifoEntry[],
  tracker: FifoOrderTracker,
): Promise<void> {
  for (let start = 0; start < entries.length; start += 10) {
    const chunk = entries.slice(start, start + 10);
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((e, i) => ({
          Id: `e${i}`,
          MessageBody: e.body,
          MessageGroupId: e.group,
          MessageDeduplicationId: e.body,
        })),
      }),
    );
    const failed = out.Failed ?? [];
    if (failed.length > 0)
      throw new Error(`SendMessageBatch refused ${failed.length} entries: ${JSON.stringify(failed)}`);
    for (const result of out.Successful ?? []) {
      const sent = chunk[Number(result.Id?.slice(1))];
      tracker.noteSent({
        messageId: result.MessageId as string,
        groupId: sent?.group as string,
        sequenceNumber: BigInt(result.SequenceNumber as string),
      });
    }
  }
}

/** What the tracker needs of a received message (received with MessageSystemAttributeNames: All). */
export function deliveredMessageOf(message: Message): DeliveredMessage {
  return {
    messageId: message.MessageId ?? '',
    sequenceNumber: message.Attributes?.SequenceNumber,
    groupId: message.Attributes?.MessageGroupId,
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? '0'),
  };
}
