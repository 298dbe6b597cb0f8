import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { startTestNode, type TestNode } from '../../../src/testing/index.js';

/**
 * What the client library's tests share: a real raftq node in this process on the real clock
 * (raftq/testing: the node `raftq serve` runs, started in milliseconds rather than a process's
 * start-up), SDK clients pointed at it, and queues created in pairs with their dead-letter queue.
 */

export interface ClientFixture {
  readonly endpoint: { readonly endpoint: string };
  readonly node: TestNode;
  readonly sqs: SQSClient;
  /** A client of its own, for a second consumer or a fresh extension-detection state. */
  newClient(endpointUrl?: string): SQSClient;
  close(): Promise<void>;
}

export async function startClientFixture(): Promise<ClientFixture> {
  const node = await startTestNode({ clock: 'real' });
  const clients: SQSClient[] = [];
  const newClient = (endpointUrl = node.endpoint) => {
    const client = new SQSClient({
      endpoint: endpointUrl,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDCLIENT', secretAccessKey: 'secret' },
    });
    clients.push(client);
    return client;
  };
  const sqs = newClient();
  return {
    endpoint: { endpoint: node.endpoint },
    node,
    sqs,
    newClient,
    async close() {
      for (const client of clients) client.destroy();
      await node.stop();
    },
  };
}

export interface QueuePair {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
}

let queueNumber = 0;

/** A source queue with a RedrivePolicy to a fresh dead-letter queue of the same type. */
export async function createQueuePair(
  sqs: SQSClient,
  options: { maxReceiveCount: number; visibilityTimeoutSeconds?: number; isFifo?: boolean; prefix?: string },
): Promise<QueuePair> {
  const suffix = options.isFifo === true ? '.fifo' : '';
  const base = `${options.prefix ?? 'client'}-${process.pid}-${queueNumber++}`;
  const fifoAttributes: Record<string, string> = options.isFifo === true ? { FifoQueue: 'true' } : {};
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${base}-dlq${suffix}`, Attributes: fifoAttributes }));
  const dlqArn = await queueArnOf(sqs, dlq.QueueUrl as string);
  const source = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${base}${suffix}`,
      Attributes: {
        ...fifoAttributes,
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount }),
      },
    }),
  );
  return {
    queueUrl: source.QueueUrl as string,
    queueArn: await queueArnOf(sqs, source.QueueUrl as string),
    deadLetterQueueUrl: dlq.QueueUrl as string,
  };
}

export async function queueArnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.['QueueArn'] as string;
}

/** ApproximateNumberOfMessages and …NotVisible, as numbers. */
export async function queueCounts(sqs: SQSClient, queueUrl: string): Promise<{ visible: number; notVisible: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.['ApproximateNumberOfMessages']),
    notVisible: Number(Attributes?.['ApproximateNumberOfMessagesNotVisible']),
  };
}

/** One receive with every attribute, long-polling up to `waitTimeSeconds`. */
export async function receiveOnce(
  sqs: SQSClient,
  queueUrl: string,
  options: { waitTimeSeconds?: number; visibilityTimeoutSeconds?: number; max?: number } = {},
): Promise<Message[]> {
  const output = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.max ?? 10,
      WaitTimeSeconds: options.waitTimeSeconds ?? 0,
      ...(options.visibilityTimeoutSeconds !== undefined
        ? { VisibilityTimeout: options.visibilityTimeoutSeconds }
        : {}),
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return output.Messages ?? [];
}

/** A promise with its resolve, for a test to await an event it triggers from a callback. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Rejects after `ms` (unref'd): a bound on an await that should have happened, never a wait. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}
