import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { TestNode } from '../../../src/testing/index.js';

/** What the raftq/testing tests share: queues with a dead-letter queue, counts, and a client that reports each answered command. */

export async function createQueueWithDeadLetters(
  node: TestNode,
  name: string,
  options: { maxReceiveCount: number; visibilityTimeoutSeconds: number },
): Promise<{ queueUrl: string; deadLetterQueueUrl: string }> {
  const dlq = await node.client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const { Attributes } = await node.client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const source = await node.client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.['QueueArn'],
          maxReceiveCount: options.maxReceiveCount,
        }),
      },
    }),
  );
  return { queueUrl: source.QueueUrl as string, deadLetterQueueUrl: dlq.QueueUrl as string };
}

export async function queueCounts(
  client: SQSClient,
  queueUrl: string,
): Promise<{ visible: number; notVisible: number; delayed: number }> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    visible: Number(Attributes?.['ApproximateNumberOfMessages']),
    notVisible: Number(Attributes?.['ApproximateNumberOfMessagesNotVisible']),
    delayed: Number(Attributes?.['ApproximateNumberOfMessagesDelayed']),
  };
}

/**
 * An SDK client for `node` that counts the commands it got an answer to, by name: a test waits
 * for a consumer's ChangeMessageVisibility to be answered (the retry delay is set) before it
 * moves the clock.
 */
export function observedClient(node: TestNode): {
  client: SQSClient;
  answered(commandName: string): number;
  until(predicate: () => boolean): Promise<void>;
} {
  const client = new SQSClient({
    endpoint: node.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const counts = new Map<string, number>();
  const listeners = new Set<() => void>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const name = String(context.commandName);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const listener of [...listeners]) listener();
      return output;
    },
    { step: 'initialize', name: 'countAnsweredCommands' },
  );
  return {
    client,
    answered: (commandName) => counts.get(commandName) ?? 0,
    until: (predicate) =>
      new Promise<void>((resolve) => {
        if (predicate()) return resolve();
        const listener = () => {
          if (!predicate()) return;
          listeners.delete(listener);
          resolve();
        };
        listeners.add(listener);
      }),
  };
}

/** Moves the node's clock in steps until `promise` settles (a request that must wait for the clock), yielding to the event loop between steps. */
export async function advanceUntilSettled<T>(node: TestNode, promise: Promise<T>, stepMs: number): Promise<T> {
  let isSettled = false;
  void promise.then(
    () => (isSettled = true),
    () => (isSettled = true),
  );
  while (!isSettled) {
    await node.advanceClock(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return promise;
}
