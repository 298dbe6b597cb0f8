// SQS over raw HTTP (JSON protocol) with undici keep-alive pools: request bodies are built once
// per client slot and only their timestamps are rewritten, so the client spends its CPU on the
// wire, not on an SDK. Used for raftq, local-aws-sqs and the no-op server.
import { setMaxListeners } from 'node:events';
import { Pool } from 'undici';
import type { ConsumedBatch, DriverOptions, LoadDriver } from './load-driver.js';
import { LoadOperationError } from './load-driver.js';
import { bodyTemplate, nowEpochMicros, readTimestampMicros, writeTimestamp } from './message-body.js';
import { sqsJsonHeaders, sqsJsonRequest } from './sqs-json-request.js';

interface SendTemplate {
  readonly request: Buffer;
  /** Where each message's timestamp sits in `request`. */
  readonly timestampOffsets: readonly number[];
}

/**
 * A JSON request body with message bodies spliced in verbatim: bodies are ASCII without quotes or
 * backslashes, so they need no escaping and their offsets are known before the first send.
 */
export function buildSendTemplate(queueUrl: string, messageBytes: number, batchSize: number): SendTemplate {
  const body = bodyTemplate(messageBytes).toString('latin1');
  const parts: string[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (text: string, isBody = false): void => {
    if (isBody) offsets.push(length);
    parts.push(text);
    length += Buffer.byteLength(text, 'latin1');
  };
  if (batchSize === 1) {
    push(`{"QueueUrl":${JSON.stringify(queueUrl)},"MessageBody":"`);
    push(body, true);
    push('"}');
  } else {
    push(`{"QueueUrl":${JSON.stringify(queueUrl)},"Entries":[`);
    for (let i = 0; i < batchSize; i++) {
      push(`${i === 0 ? '' : ','}{"Id":"m${i}","MessageBody":"`);
      push(body, true);
      push('"}');
    }
    push(']}');
  }
  return { request: Buffer.from(parts.join(''), 'latin1'), timestampOffsets: offsets };
}

/** A JSON response body; an empty one (local-aws-sqs answers an empty receive so) is an empty object. */
export function parseJsonResponse<T extends object>(text: string): Partial<T> {
  return text.trim() === '' ? {} : (JSON.parse(text) as Partial<T>);
}

interface ReceivedMessage {
  readonly ReceiptHandle?: string;
  readonly Body?: string;
}

export class SqsDriver implements LoadDriver {
  private readonly pools: Pool[];
  private readonly sendTemplates = new Map<number, SendTemplate>();
  private readonly receiveRequest: Buffer;
  private readonly aborter = new AbortController();
  private readonly queueUrl: string;

  constructor(private readonly options: DriverOptions) {
    if (options.target.kind !== 'sqs') throw new TypeError('SqsDriver needs an sqs target');
    if (options.queue.url === undefined) throw new TypeError('SqsDriver needs a queue URL');
    this.queueUrl = options.queue.url;
    // Every request of every slot listens on this one signal.
    setMaxListeners(0, this.aborter.signal);
    const endpoints = options.target.endpoints;
    const slots = [...options.producerSlots, ...options.consumerSlots];
    this.pools = endpoints.map((origin, e) => {
      const slotsHere = slots.filter((s) => s % endpoints.length === e).length;
      return new Pool(origin, { connections: Math.max(1, slotsHere), pipelining: 1, keepAliveTimeout: 60_000 });
    });
    this.receiveRequest = Buffer.from(
      JSON.stringify({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: options.batchSize,
        WaitTimeSeconds: options.receiveWaitSeconds,
      }),
    );
  }

  async open(): Promise<void> {
    for (const slot of this.options.producerSlots) {
      this.sendTemplates.set(slot, buildSendTemplate(this.queueUrl, this.options.messageBytes, this.options.batchSize));
    }
  }

  private pool(slot: number): Pool {
    return this.pools[slot % this.pools.length] as Pool;
  }

  private async call(slot: number, action: string, body: Buffer | string, wantsBody: boolean): Promise<string> {
    const headers = sqsJsonHeaders(action);
    if (this.options.target.kind === 'sqs' && this.options.target.isNoop)
      headers['x-bench-body-bytes'] = String(this.options.messageBytes);
    const response = await this.pool(slot).request({
      path: '/',
      method: 'POST',
      headers,
      body,
      signal: this.aborter.signal,
    });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      throw new LoadOperationError(action, `HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
    }
    if (!wantsBody) {
      await response.body.dump();
      return '';
    }
    return response.body.text();
  }

  async produce(slot: number): Promise<number> {
    const template = this.sendTemplates.get(slot);
    if (template === undefined) throw new TypeError(`slot ${slot} is not a producer slot`);
    const micros = nowEpochMicros();
    for (const offset of template.timestampOffsets) writeTimestamp(template.request, offset, micros);
    if (this.options.batchSize === 1) {
      await this.call(slot, 'SendMessage', template.request, false);
      return 1;
    }
    const text = await this.call(slot, 'SendMessageBatch', template.request, true);
    const failed = parseJsonResponse<{ Failed: unknown[] }>(text).Failed ?? [];
    if (failed.length > 0)
      throw new LoadOperationError(
        'SendMessageBatch',
        `${failed.length} entries failed: ${JSON.stringify(failed[0]).slice(0, 200)}`,
      );
    return this.options.batchSize;
  }

  async consume(slot: number): Promise<ConsumedBatch> {
    const text = await this.call(slot, 'ReceiveMessage', this.receiveRequest, true);
    const messages = parseJsonResponse<{ Messages: ReceivedMessage[] }>(text).Messages ?? [];
    if (messages.length === 0) return { count: 0, sentAtMicros: [] };
    const sentAtMicros: number[] = [];
    for (const message of messages) {
      const sentAt = message.Body === undefined ? null : readTimestampMicros(message.Body);
      if (sentAt !== null) sentAtMicros.push(sentAt);
    }
    if (this.options.batchSize === 1 && messages.length === 1) {
      await this.call(
        slot,
        'DeleteMessage',
        JSON.stringify({ QueueUrl: this.queueUrl, ReceiptHandle: messages[0]?.ReceiptHandle }),
        false,
      );
    } else {
      const entries = messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle }));
      const deleted = await this.call(
        slot,
        'DeleteMessageBatch',
        JSON.stringify({ QueueUrl: this.queueUrl, Entries: entries }),
        true,
      );
      const failed = parseJsonResponse<{ Failed: unknown[] }>(deleted).Failed ?? [];
      if (failed.length > 0)
        throw new LoadOperationError(
          'DeleteMessageBatch',
          `${failed.length} entries failed: ${JSON.stringify(failed[0]).slice(0, 200)}`,
        );
    }
    return { count: messages.length, sentAtMicros };
  }

  interrupt(): void {
    this.aborter.abort();
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.destroy()));
  }
}

/** Creates (or finds) a queue and returns its URL; used by the coordinator before a cell. */
export async function createSqsQueue(endpoint: string, name: string): Promise<string> {
  const text = await sqsAdminCall(endpoint, 'CreateQueue', { QueueName: name });
  const url = parseJsonResponse<{ QueueUrl: string }>(text).QueueUrl;
  if (typeof url !== 'string') throw new LoadOperationError('CreateQueue', `no QueueUrl in ${text.slice(0, 200)}`);
  return url;
}

export async function deleteSqsQueue(endpoint: string, queueUrl: string): Promise<void> {
  await sqsAdminCall(endpoint, 'DeleteQueue', { QueueUrl: queueUrl });
}

async function sqsAdminCall(endpoint: string, action: string, body: object): Promise<string> {
  const pool = new Pool(endpoint, { connections: 1 });
  try {
    const { statusCode, text } = await sqsJsonRequest(pool, action, body);
    if (statusCode !== 200) throw new LoadOperationError(action, `HTTP ${statusCode}: ${text.slice(0, 300)}`);
    return text;
  } finally {
    await pool.destroy();
  }
}
