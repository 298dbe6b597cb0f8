/**
 * Reads a dead-letter queue without consuming it. SQS has no peek, so the scan receives messages
 * with a short visibility timeout (deadLetterScanVisibilitySeconds) — so that each next receive
 * returns other messages — and makes every one it does not keep visible again when it ends. A
 * scan that dies half-way costs only that timeout.
 *
 * What it costs: each scan adds one to the ApproximateReceiveCount of every message it reads, so
 * a dead-letter queue with a RedrivePolicy of its own may move messages on; and while a scan runs,
 * what it has read is invisible to other readers. A FIFO dead-letter queue holds a group back
 * while any of its messages is out, so a scan sees at most 10 messages of each group.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { raftqLimits, sqsLimits } from '../base/limits.js';

export interface ScanResult {
  /** Messages the scan kept hidden for the caller: `take` picked them. */
  readonly taken: Message[];
  /** Messages `isWanted` picked; already visible again. */
  readonly wanted: Message[];
  readonly scannedCount: number;
}

export interface ScanOptions {
  /** Messages to collect (visible again when the scan ends). */
  readonly isWanted?: (message: Message) => boolean;
  readonly wantedMax?: number;
  /** A message to keep hidden and hand back; the scan ends once it is found. */
  readonly take?: (message: Message) => boolean;
}

export async function scanDeadLetterQueue(
  client: SQSClient,
  queueUrl: string,
  options: ScanOptions,
): Promise<ScanResult> {
  const scanMax = raftqLimits.deadLettersListedMax.value;
  const wantedMax = options.wantedMax ?? scanMax;
  const hidden: Message[] = [];
  const taken: Message[] = [];
  const wanted: Message[] = [];
  try {
    while (hidden.length + taken.length < scanMax && wanted.length < wantedMax && taken.length === 0) {
      const output = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(sqsLimits.receiveMessagesMax.value, scanMax - hidden.length),
          VisibilityTimeout: raftqLimits.deadLetterScanVisibilitySeconds.value,
          WaitTimeSeconds: raftqLimits.deadLetterScanWaitSeconds.value,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = output.Messages ?? [];
      if (messages.length === 0) break;
      for (const message of messages) {
        if (options.take?.(message) === true && taken.length === 0) {
          taken.push(message);
          continue;
        }
        hidden.push(message);
        if (wanted.length < wantedMax && options.isWanted?.(message) === true) wanted.push(message);
      }
    }
  } finally {
    await releaseAll(client, queueUrl, hidden);
  }
  return { taken, wanted, scannedCount: hidden.length + taken.length };
}

/** Makes scanned messages visible again; a failure only delays that until their timeout ends. */
export async function releaseAll(client: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  const batchMax = sqsLimits.batchEntriesMax.value;
  for (let start = 0; start < messages.length; start += batchMax) {
    const entries = messages
      .slice(start, start + batchMax)
      .filter((m) => m.ReceiptHandle !== undefined)
      .map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle as string, VisibilityTimeout: 0 }));
    if (entries.length === 0) continue;
    try {
      await client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    } catch {
      // Best effort, as documented above: these messages come back when their timeout ends.
    }
  }
}
