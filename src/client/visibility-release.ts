/**
 * Gives received messages back to the queue unprocessed: ChangeMessageVisibilityBatch to 0, up to
 * 10 entries a request, so that the next receive (of any consumer) gets them at once instead of
 * after their visibility timeout. Used for messages a stopping consumer will not start and for a
 * FIFO group's messages behind one that did not complete.
 *
 * A release that fails costs time, not messages: the message comes back when its timeout ends.
 * Failures are reported, never thrown.
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsLimits } from '../base/limits.js';
import { BatchEntryFailedError } from './delete-batcher.js';

export async function releaseToQueue(
  client: SQSClient,
  queueUrl: string,
  receiptHandles: readonly string[],
  report: (error: unknown) => void,
): Promise<void> {
  const batchEntriesMax = sqsLimits.batchEntriesMax.value;
  const requests: Array<Promise<void>> = [];
  for (let start = 0; start < receiptHandles.length; start += batchEntriesMax) {
    requests.push(releaseBatch(client, queueUrl, receiptHandles.slice(start, start + batchEntriesMax), report));
  }
  await Promise.all(requests);
}

async function releaseBatch(
  client: SQSClient,
  queueUrl: string,
  receiptHandles: readonly string[],
  report: (error: unknown) => void,
): Promise<void> {
  const entries = receiptHandles.map((receiptHandle, index) => ({
    Id: String(index),
    ReceiptHandle: receiptHandle,
    VisibilityTimeout: 0,
  }));
  try {
    const output = await client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    for (const failure of output.Failed ?? []) {
      report(
        new BatchEntryFailedError(
          failure.Code ?? 'Unknown',
          failure.SenderFault === true,
          failure.Message ?? 'the release failed',
        ),
      );
    }
  } catch (error) {
    report(error);
  }
}
