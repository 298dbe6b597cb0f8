/**
 * createProducer(): sends messages to one queue in batches, with per-entry retries.
 *
 * A send() waits at most lingerMs for others to share its SendMessageBatch; a batch leaves as soon
 * as it has 10 entries or would pass SQS's batch size, whichever comes first, with at most
 * producerBatchesInFlightMax batches outstanding. An entry that fails transiently (a failed entry
 * that is not the sender's fault, or the whole request failing after the SDK's own retries) is
 * sent again with exactly the same content — body, attributes, delay, group id and deduplication
 * id — up to producerEntryAttemptsMax times; an entry SQS refuses as the sender's fault is
 * rejected at once. On a FIFO queue a repeat therefore deduplicates; on a standard queue a repeat
 * after an answer that was lost may enqueue the message twice (at least once).
 */
import {
  SendMessageBatchCommand,
  SQSClient,
  type MessageAttributeValue,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { backoffMs } from './backoff.js';
import { checkNumber } from './consumer-options.js';
import { ClientOptionsError, ProducerClosedError, ProducerSendError } from './errors.js';
import { isTransientSqsFailure, sqsErrorName } from './sqs-failure.js';

export interface ProducerMessage {
  readonly body: string;
  readonly messageAttributes?: Readonly<Record<string, MessageAttributeValue>>;
  /** Required by FIFO queues; passed through unchanged. */
  readonly messageGroupId?: string;
  /** FIFO queues; passed through unchanged, and the same on every repeat of the entry. */
  readonly messageDeduplicationId?: string;
  readonly delaySeconds?: number;
}

export interface SentMessage {
  readonly messageId: string;
  /** FIFO queues only. */
  readonly sequenceNumber?: string;
}

export interface ProducerOptions {
  readonly queueUrl: string;
  /** Defaults to `new SQSClient({})`, configured from the environment; destroyed by close(). */
  readonly client?: SQSClient;
  /** How long a message waits for others to fill its batch: 0 to producerLingerMsMax; absent: producerLingerMsDefault. */
  readonly lingerMs?: number;
}

export interface Producer {
  /** Resolves once SQS has stored the message; rejects with ProducerSendError. */
  send(message: string | ProducerMessage): Promise<SentMessage>;
  /** Sends everything waiting now and resolves when every send so far has settled. */
  flush(): Promise<void>;
  /** Flushes, then refuses further sends (ProducerClosedError). */
  close(): Promise<void>;
}

interface PendingEntry {
  readonly request: SendMessageBatchRequestEntry;
  readonly sizeBytes: number;
  attempts: number;
  readonly resolve: (sent: SentMessage) => void;
  readonly reject: (error: Error) => void;
}

export function createProducer(options: ProducerOptions): Producer {
  if (typeof options?.queueUrl !== 'string' || options.queueUrl === '')
    throw new ClientOptionsError('queueUrl', options?.queueUrl, 'it must be a queue URL');
  const lingerMs = options.lingerMs ?? raftqLimits.producerLingerMsDefault.value;
  checkNumber('lingerMs', lingerMs, 0, raftqLimits.producerLingerMsMax.value);
  return new BatchingProducer(options.queueUrl, options.client, lingerMs);
}

class BatchingProducer implements Producer {
  private readonly client: SQSClient;
  private readonly ownsClient: boolean;
  private readonly pending: PendingEntry[] = [];
  private readonly outstanding = new Set<Promise<unknown>>();
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private batchesInFlight = 0;
  private nextEntryNumber = 0;
  private isClosed = false;

  constructor(
    private readonly queueUrl: string,
    client: SQSClient | undefined,
    private readonly lingerMs: number,
  ) {
    this.ownsClient = client === undefined;
    this.client = client ?? new SQSClient({});
  }

  send(message: string | ProducerMessage): Promise<SentMessage> {
    if (this.isClosed) return Promise.reject(new ProducerClosedError(this.queueUrl));
    const spec: ProducerMessage = typeof message === 'string' ? { body: message } : message;
    if (typeof spec?.body !== 'string')
      return Promise.reject(new ClientOptionsError('body', spec?.body, 'a message body must be a string'));
    const request: SendMessageBatchRequestEntry = Object.freeze({
      Id: `m${this.nextEntryNumber++}`,
      MessageBody: spec.body,
      ...(spec.messageAttributes !== undefined ? { MessageAttributes: { ...spec.messageAttributes } } : {}),
      ...(spec.messageGroupId !== undefined ? { MessageGroupId: spec.messageGroupId } : {}),
      ...(spec.messageDeduplicationId !== undefined ? { MessageDeduplicationId: spec.messageDeduplicationId } : {}),
      ...(spec.delaySeconds !== undefined ? { DelaySeconds: spec.delaySeconds } : {}),
    });
    const sent = new Promise<SentMessage>((resolve, reject) => {
      this.pending.push({ request, sizeBytes: entrySizeBytes(spec), attempts: 0, resolve, reject });
    });
    const settled = sent.then(
      () => undefined,
      () => undefined,
    );
    this.outstanding.add(settled);
    void settled.then(() => this.outstanding.delete(settled));
    this.pump({ isLingerOver: false });
    return sent;
  }

  async flush(): Promise<void> {
    this.pump({ isLingerOver: true });
    while (this.outstanding.size > 0) await Promise.allSettled([...this.outstanding]);
  }

  async close(): Promise<void> {
    this.isClosed = true;
    await this.flush();
    if (this.lingerTimer !== undefined) clearTimeout(this.lingerTimer);
    if (this.ownsClient) this.client.destroy();
  }

  /** Starts every batch that may leave now; arms the linger timer for what must wait. */
  private pump(options: { isLingerOver: boolean }): void {
    const { isLingerOver } = options;
    if (isLingerOver && this.lingerTimer !== undefined) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    while (this.pending.length > 0 && this.batchesInFlight < raftqLimits.producerBatchesInFlightMax.value) {
      const batchSize = this.nextBatchSize();
      if (!isLingerOver && batchSize === this.pending.length && batchSize < sqsLimits.batchEntriesMax.value) break;
      this.sendBatch(this.pending.splice(0, batchSize));
    }
    if (this.pending.length > 0 && this.lingerTimer === undefined) {
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        this.pump({ isLingerOver: true });
      }, this.lingerMs);
    }
  }

  /** Entries from the head that fit one SendMessageBatch (at least one, however large). */
  private nextBatchSize(): number {
    let bytes = 0;
    let count = 0;
    for (const entry of this.pending) {
      if (count >= sqsLimits.batchEntriesMax.value) break;
      if (count > 0 && bytes + entry.sizeBytes > sqsLimits.batchSizeBytesMax.value) break;
      bytes += entry.sizeBytes;
      count++;
    }
    return count;
  }

  private sendBatch(batch: PendingEntry[]): void {
    this.batchesInFlight++;
    for (const entry of batch) entry.attempts++;
    const byId = new Map(batch.map((entry) => [entry.request.Id, entry]));
    this.client
      .send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch.map((entry) => entry.request) }))
      .then(
        (output) => {
          const retries: PendingEntry[] = [];
          for (const success of output.Successful ?? []) {
            const entry = byId.get(success.Id);
            if (entry === undefined) continue;
            byId.delete(success.Id);
            entry.resolve(
              success.SequenceNumber !== undefined
                ? { messageId: success.MessageId ?? '', sequenceNumber: success.SequenceNumber }
                : { messageId: success.MessageId ?? '' },
            );
          }
          for (const failure of output.Failed ?? []) {
            const entry = byId.get(failure.Id);
            if (entry === undefined) continue;
            byId.delete(failure.Id);
            if (this.isWorthRepeating(entry, failure.SenderFault !== true)) retries.push(entry);
            else
              entry.reject(
                new ProducerSendError(
                  this.queueUrl,
                  failure.Code ?? 'Unknown',
                  entry.attempts,
                  failure.Message ?? 'the entry was refused',
                ),
              );
          }
          // Neither succeeded nor failed: repeat it like a transient failure.
          for (const entry of byId.values()) {
            if (this.isWorthRepeating(entry, true)) retries.push(entry);
            else
              entry.reject(
                new ProducerSendError(
                  this.queueUrl,
                  'MissingResult',
                  entry.attempts,
                  'the batch answer did not mention this entry',
                ),
              );
          }
          this.retryLater(retries);
        },
        (error: unknown) => {
          const isTransient = isTransientSqsFailure(error);
          const retries: PendingEntry[] = [];
          for (const entry of batch) {
            if (this.isWorthRepeating(entry, isTransient)) retries.push(entry);
            else
              entry.reject(
                new ProducerSendError(
                  this.queueUrl,
                  sqsErrorName(error),
                  entry.attempts,
                  error instanceof Error ? error.message : 'request failed',
                  { cause: error },
                ),
              );
          }
          this.retryLater(retries);
        },
      )
      .finally(() => {
        this.batchesInFlight--;
        this.pump({ isLingerOver: false });
      });
  }

  private isWorthRepeating(entry: PendingEntry, isTransient: boolean): boolean {
    return isTransient && entry.attempts < raftqLimits.producerEntryAttemptsMax.value;
  }

  /** The same entries, unchanged, go back to the head of the queue together after a backoff. */
  private retryLater(entries: PendingEntry[]): void {
    if (entries.length === 0) return;
    const attempts = Math.max(...entries.map((entry) => entry.attempts));
    setTimeout(() => {
      this.pending.unshift(...entries);
      this.pump({ isLingerOver: true });
    }, backoffMs(attempts));
  }
}

/** What SQS counts against its batch size: body plus every attribute's name, type and value. */
function entrySizeBytes(message: ProducerMessage): number {
  let bytes = Buffer.byteLength(message.body, 'utf8');
  for (const [name, value] of Object.entries(message.messageAttributes ?? {})) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    if (value.StringValue !== undefined) bytes += Buffer.byteLength(value.StringValue, 'utf8');
    if (value.BinaryValue !== undefined) bytes += value.BinaryValue.byteLength;
  }
  return bytes;
}
