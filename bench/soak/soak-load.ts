// The soak workload: steady producers and consumers, plus the churn the reaper must keep up
// with — purges, delete/recreate cycles, messages that expire, FIFO dedup rows that age out.
//
//  queue          producers            consumers                 churn
//  steady         rate                 12 lanes: receive 10 + delete batch
//  steady.fifo    rate / 10, dedup ids 2 lanes, likewise           dedup rows expire after 5 min
//  purged         rate / 4             none                       PurgeQueue every purgeEveryMs
//  cycle          rate / 4             none                       DeleteQueue + CreateQueue every cycleEveryMs
//  expiring       rate / 10            none                       MessageRetentionPeriod 60 s
import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { sqsJsonRequest } from '../load/sqs-json-request.js';

export interface SoakLoadOptions {
  /** One SQS endpoint per node; clients spread over them. */
  readonly endpoints: readonly string[];
  readonly messagesPerSecond: number;
  readonly messageBytes: number;
  readonly purgeEveryMs: number;
  readonly cycleEveryMs: number;
}

export interface SoakCounters {
  sent: number;
  received: number;
  deleted: number;
  purges: number;
  cycles: number;
  errors: number;
  lastError: string;
}

class SqsCallError extends Error {
  constructor(
    readonly action: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${action}: HTTP ${status}: ${body.slice(0, 200)}`);
  }
}

/** A small JSON-protocol SQS client over keep-alive pools (no SDK: the client must stay cheap). */
class SqsJson {
  private readonly pools: Pool[];
  private next = 0;

  constructor(endpoints: readonly string[]) {
    this.pools = endpoints.map((endpoint) => new Pool(endpoint, { connections: 16 }));
  }

  async call<T>(action: string, body: object): Promise<T> {
    const pool = this.pools[this.next++ % this.pools.length] as Pool;
    const { statusCode, text } = await sqsJsonRequest(pool, action, body);
    if (statusCode !== 200) throw new SqsCallError(action, statusCode, text);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.close()));
  }
}

export class SoakLoad {
  readonly counters: SoakCounters = {
    sent: 0,
    received: 0,
    deleted: 0,
    purges: 0,
    cycles: 0,
    errors: 0,
    lastError: '',
  };
  /** Latencies (ms) of receives that returned messages, since the last drain. */
  private receiveLatenciesMs: number[] = [];
  private isRunning = true;
  private readonly sqs: SqsJson;
  private readonly urls = new Map<string, string>();
  private readonly loops: Promise<void>[] = [];
  private readonly body: string;
  private dedupCounter = 0;

  constructor(private readonly options: SoakLoadOptions) {
    this.sqs = new SqsJson(options.endpoints);
    this.body = 'x'.repeat(options.messageBytes);
  }

  async start(): Promise<void> {
    await this.createQueue('steady', {});
    await this.createQueue('steady.fifo', { FifoQueue: 'true' });
    await this.createQueue('purged', {});
    await this.createQueue('cycle', {});
    await this.createQueue('expiring', { MessageRetentionPeriod: '60' });
    const rate = this.options.messagesPerSecond;
    this.loops.push(
      this.produce('steady', rate, 4),
      this.produce('steady.fifo', rate / 10, 1),
      this.produce('purged', rate / 4, 1),
    );
    this.loops.push(this.produce('cycle', rate / 4, 1), this.produce('expiring', rate / 10, 1));
    // Consumers outnumber what the producers need, so the steady queues stay near empty even on a loaded machine.
    for (let lane = 0; lane < 12; lane++) this.loops.push(this.consume('steady'));
    for (let lane = 0; lane < 2; lane++) this.loops.push(this.consume('steady.fifo'));
    this.loops.push(this.every(this.options.purgeEveryMs, () => this.purge('purged')));
    this.loops.push(this.every(this.options.cycleEveryMs, () => this.recycle('cycle')));
  }

  /** Receive latencies (ms) recorded since the last call. */
  drainReceiveLatencies(): number[] {
    const taken = this.receiveLatenciesMs;
    this.receiveLatenciesMs = [];
    return taken;
  }

  async stop(): Promise<void> {
    this.isRunning = false;
    await Promise.all(this.loops);
    await this.sqs.close();
  }

  private async createQueue(name: string, attributes: Record<string, string>): Promise<void> {
    const answer = await this.sqs.call<{ QueueUrl: string }>('CreateQueue', {
      QueueName: name,
      Attributes: attributes,
    });
    this.urls.set(name, answer.QueueUrl);
  }

  private url(name: string): string {
    return this.urls.get(name) ?? '';
  }

  private noteError(error: unknown): void {
    this.counters.errors++;
    this.counters.lastError = error instanceof Error ? error.message : String(error);
  }

  /** Sends batches of 10 at `messagesPerSecond` over `lanes` concurrent loops, paced against the clock. */
  private async produce(queue: string, messagesPerSecond: number, lanes: number): Promise<void> {
    const isFifo = queue.endsWith('.fifo');
    const batchesPerSecondPerLane = messagesPerSecond / 10 / lanes;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        const startedMs = Date.now();
        let batches = 0;
        while (this.isRunning) {
          const dueMs = startedMs + (batches * 1000) / batchesPerSecondPerLane;
          const waitMs = dueMs - Date.now();
          if (waitMs > 0) await delay(waitMs);
          batches++;
          const entries = Array.from({ length: 10 }, (_, i) => ({
            Id: `e${i}`,
            MessageBody: this.body,
            ...(isFifo ? { MessageGroupId: `g${i % 4}`, MessageDeduplicationId: `d${this.dedupCounter++}` } : {}),
          }));
          try {
            const answer = await this.sqs.call<{ Successful?: unknown[] }>('SendMessageBatch', {
              QueueUrl: this.url(queue),
              Entries: entries,
            });
            this.counters.sent += answer.Successful?.length ?? 0;
          } catch (error) {
            // The cycle queue is missing for a moment while it is recreated: expected, not counted.
            if (!(error instanceof SqsCallError && error.body.includes('QueueDoesNotExist'))) this.noteError(error);
          }
        }
      }),
    );
  }

  private async consume(queue: string): Promise<void> {
    while (this.isRunning) {
      try {
        const startedMs = performance.now();
        const answer = await this.sqs.call<{ Messages?: Array<{ ReceiptHandle: string }> }>('ReceiveMessage', {
          QueueUrl: this.url(queue),
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        });
        const messages = answer.Messages ?? [];
        if (messages.length === 0) {
          // Short polls, so that the latency measured is the server's; an empty queue is polled
          // every 100 ms per lane (an empty receive still scans the queue's vis range).
          await delay(100);
          continue;
        }
        this.receiveLatenciesMs.push(performance.now() - startedMs);
        this.counters.received += messages.length;
        const entries = messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle }));
        const deleted = await this.sqs.call<{ Successful?: unknown[] }>('DeleteMessageBatch', {
          QueueUrl: this.url(queue),
          Entries: entries,
        });
        this.counters.deleted += deleted.Successful?.length ?? 0;
      } catch (error) {
        this.noteError(error);
        await delay(100);
      }
    }
  }

  private async every(intervalMs: number, action: () => Promise<void>): Promise<void> {
    let nextMs = Date.now() + intervalMs;
    while (this.isRunning) {
      await delay(Math.min(500, Math.max(0, nextMs - Date.now())));
      if (Date.now() < nextMs || !this.isRunning) continue;
      nextMs += intervalMs;
      await action().catch((error: unknown) => this.noteError(error));
    }
  }

  private async purge(queue: string): Promise<void> {
    await this.sqs.call('PurgeQueue', { QueueUrl: this.url(queue) });
    this.counters.purges++;
  }

  private async recycle(queue: string): Promise<void> {
    await this.sqs.call('DeleteQueue', { QueueUrl: this.url(queue) });
    await this.createQueue(queue, {});
    this.counters.cycles++;
  }
}
