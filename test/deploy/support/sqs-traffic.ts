/**
 * SQS traffic the way an operator's clients behave during maintenance: every send goes to one
 * node and, when that node fails or is down, is retried on the next node, until it is
 * acknowledged or a bound passes. What was acknowledged is recorded, so a test can check that
 * nothing acknowledged is lost.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sqsClient } from './node-process.js';

export const accountId = '000000000000';

export class FailoverSqs {
  private readonly clients = new Map<string, SQSClient>();
  private next = 0;

  /** `endpoints()` is asked on every attempt: nodes come and go during a test. */
  constructor(private readonly endpoints: () => readonly string[]) {}

  private client(endpoint: string): SQSClient {
    let client = this.clients.get(endpoint);
    if (client === undefined) {
      client = sqsClient(endpoint);
      this.clients.set(endpoint, client);
    }
    return client;
  }

  /** Runs `call` against one node after another until one answers, within `timeoutMs`. */
  async withFailover<T>(
    call: (client: SQSClient, queueUrlOf: (name: string) => string) => Promise<T>,
    timeoutMs = 30_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown = null;
    for (;;) {
      const live = this.endpoints();
      const endpoint = live[this.next++ % Math.max(1, live.length)];
      if (endpoint !== undefined) {
        try {
          return await call(this.client(endpoint), (name) => `${endpoint}/${accountId}/${name}`);
        } catch (error) {
          lastError = error;
        }
      }
      if (Date.now() > deadline) throw new Error(`every node failed for ${timeoutMs} ms; last: ${String(lastError)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async createQueue(name: string): Promise<void> {
    await this.withFailover((client) => client.send(new CreateQueueCommand({ QueueName: name })));
  }

  async send(queueName: string, body: string): Promise<void> {
    await this.withFailover((client, queueUrlOf) =>
      client.send(new SendMessageCommand({ QueueUrl: queueUrlOf(queueName), MessageBody: body })),
    );
  }

  /** Receives and deletes until `expected` bodies were all seen (or the bound passes); returns every body seen. */
  async drain(queueName: string, expected: ReadonlySet<string>, timeoutMs = 60_000): Promise<Set<string>> {
    const seen = new Set<string>();
    const deadline = Date.now() + timeoutMs;
    while ([...expected].some((body) => !seen.has(body)) && Date.now() < deadline) {
      await this.withFailover(async (client, queueUrlOf) => {
        const url = queueUrlOf(queueName);
        const answer = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 60,
          }),
        );
        const messages = answer.Messages ?? [];
        for (const message of messages) seen.add(message.Body ?? '');
        if (messages.length > 0) {
          await client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          );
        }
      });
    }
    return seen;
  }

  close(): void {
    for (const client of this.clients.values()) client.destroy();
  }
}

/** Sends numbered messages one after another until stopped; records what was acknowledged. */
export class BackgroundSends {
  readonly acknowledged = new Set<string>();
  readonly failures: string[] = [];
  private isRunning = true;
  private readonly done: Promise<void>;

  constructor(sqs: FailoverSqs, queueName: string, prefix: string) {
    this.done = (async () => {
      for (let i = 0; this.isRunning; i++) {
        const body = `${prefix}-${i}`;
        try {
          await sqs.send(queueName, body);
          this.acknowledged.add(body);
        } catch (error) {
          this.failures.push(`${body}: ${String(error)}`);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.isRunning = false;
    await this.done;
  }
}
