import { SendMessageCommand, CreateQueueCommand } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../../src/testing/index.js';
import { within } from '../client/support/client-fixture.js';
import { queueCounts } from './support/test-node-helpers.js';

/**
 * sqs-consumer 14.x, unmodified, against a test node: it consumes, and a message whose handler
 * failed comes back when the test moves the clock past the visibility timeout, not before.
 */

let node: TestNode;

beforeEach(async () => {
  node = await startTestNode();
});

afterEach(async () => {
  await node?.stop();
});

describe('sqs-consumer on a test node', () => {
  it('handles every message, and handles again one whose handler failed once the visibility timeout lapses on the clock', async () => {
    await node.client.send(new CreateQueueCommand({ QueueName: 'emails', Attributes: { VisibilityTimeout: '30' } }));
    const queueUrl = node.queueUrl('emails');
    const handled: Array<{ body: string; atMs: number }> = [];
    const listeners = new Set<() => void>();
    const handledCount = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => handled.length >= n && (listeners.delete(check), resolve());
        listeners.add(check);
        check();
      });
    const attempts = new Map<string, number>();
    const errors: Error[] = [];
    const consumer = Consumer.create({
      queueUrl,
      sqs: node.client,
      waitTimeSeconds: 20,
      handleMessage: async (message) => {
        const body = message.Body as string;
        const attempt = (attempts.get(body) ?? 0) + 1;
        attempts.set(body, attempt);
        if (body === 'bounce' && attempt === 1) throw new Error('mail server down');
        handled.push({ body, atMs: node.nowMs() });
        for (const listener of listeners) listener();
        return message;
      },
    });
    consumer.on('processing_error', (error) => errors.push(error));
    consumer.start();
    try {
      const failedAtMs = node.nowMs();
      for (const body of ['welcome', 'bounce', 'receipt'])
        await node.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      await within(handledCount(2), 10_000, 'the two good messages');
      await within(
        (async () => {
          while (attempts.get('bounce') !== 1 || errors.length === 0)
            await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        10_000,
        'the failed attempt',
      );
      expect(await queueCounts(node.client, queueUrl)).toEqual({ visible: 0, notVisible: 1, delayed: 0 });
      await node.advanceClock(29_000);
      expect(attempts.get('bounce')).toBe(1);
      await node.advanceClock(1_000);
      await within(handledCount(3), 10_000, 'the retried message');
      expect(handled.map((h) => h.body).sort()).toEqual(['bounce', 'receipt', 'welcome']);
      expect(handled.find((h) => h.body === 'bounce')?.atMs).toBe(failedAtMs + 30_000);
      expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('mail server down')]);
      await within(
        (async () => {
          while ((await queueCounts(node.client, queueUrl)).notVisible !== 0)
            await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        10_000,
        'the retried message to be deleted',
      );
    } finally {
      consumer.stop({ abort: true });
    }
  });
});
