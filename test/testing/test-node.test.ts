import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consume, type Delivery } from '../../src/client/index.js';
import { startTestNode, type TestNode } from '../../src/testing/index.js';
import { within } from '../client/support/client-fixture.js';
import { makeTempDir } from '../support/temp-dir.js';
import {
  advanceUntilSettled,
  createQueueWithDeadLetters,
  observedClient,
  queueCounts,
} from './support/test-node-helpers.js';

/**
 * raftq/testing's startTestNode() on its manual clock: visibility timeouts, retry back-off,
 * delays and long polls run on the clock the test moves, so none of these tests sleeps. Each runs
 * on the memory engine (the default) and on a data directory (a one-voter Raft cluster node).
 */

describe.each([{ storage: 'memory' as const }, { storage: 'data directory' as const }])(
  'startTestNode on the $storage',
  ({ storage }) => {
    let node: TestNode;
    let dataDir: { path: string; cleanup: () => void } | undefined;

    beforeEach(async () => {
      dataDir = storage === 'data directory' ? makeTempDir('test-node') : undefined;
      node = await startTestNode(dataDir === undefined ? {} : { dataDir: dataDir.path });
    });

    afterEach(async () => {
      await node?.stop();
      dataDir?.cleanup();
    });

    it("retries a consumer's failed delivery after a doubling delay, measured in clock ms", async () => {
      const { queueUrl } = await createQueueWithDeadLetters(node, 'flaky', {
        maxReceiveCount: 5,
        visibilityTimeoutSeconds: 30,
      });
      await node.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'charge card 17' }));
      const observed = observedClient(node);
      const deliveries: Array<{ receiveCount: number; atMs: number }> = [];
      const deliveryListeners = new Set<() => void>();
      const controller = new AbortController();
      const consumer = consume({
        queueUrl,
        client: observed.client,
        signal: controller.signal,
        handlerIsIdempotent: true,
        retryDelayMs: 1_000,
        retryDelayMsMax: 4_000,
        handler: (delivery: Delivery) => {
          deliveries.push({ receiveCount: delivery.receiveCount, atMs: node.nowMs() });
          for (const listener of deliveryListeners) listener();
          throw new Error('payment provider unavailable');
        },
      });
      const deliveryCount = (n: number) =>
        new Promise<void>((resolve) => {
          const check = () => deliveries.length >= n && (deliveryListeners.delete(check), resolve());
          deliveryListeners.add(check);
          check();
        });
      const expectedDelaysMs = [1_000, 2_000, 4_000, 4_000];
      try {
        await within(deliveryCount(1), 10_000, 'the first delivery');
        for (const [i, delayMs] of expectedDelaysMs.entries()) {
          // The failed delivery's retry delay is set once its ChangeMessageVisibility is answered.
          await within(
            observed.until(() => observed.answered('ChangeMessageVisibilityCommand') >= i + 1),
            10_000,
            `retry ${i + 1} to be set`,
          );
          await node.advanceClock(delayMs - 1);
          expect(await queueCounts(node.client, queueUrl)).toMatchObject({ visible: 0, notVisible: 1 });
          expect(deliveries).toHaveLength(i + 1);
          await node.advanceClock(1);
          await within(deliveryCount(i + 2), 10_000, `delivery ${i + 2}`);
        }
      } finally {
        controller.abort();
        await consumer;
        observed.client.destroy();
      }
      expect(deliveries.map((d) => d.receiveCount)).toEqual([1, 2, 3, 4, 5]);
      const gapsMs = deliveries.slice(1).map((d, i) => d.atMs - (deliveries[i]?.atMs as number));
      expect(gapsMs).toEqual(expectedDelaysMs);
    });

    it('moves a message to its dead-letter queue after maxReceiveCount receives, each visibility timeout lapsed by advanceClock', async () => {
      const { queueUrl, deadLetterQueueUrl } = await createQueueWithDeadLetters(node, 'orders', {
        maxReceiveCount: 3,
        visibilityTimeoutSeconds: 30,
      });
      const { MessageId } = await node.client.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'poison' }),
      );
      const receive = async (url: string) =>
        (
          await node.client.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              WaitTimeSeconds: 0,
              MessageSystemAttributeNames: ['ApproximateReceiveCount'],
            }),
          )
        ).Messages ?? [];
      for (let count = 1; count <= 3; count++) {
        const [message] = await receive(queueUrl);
        expect(message?.MessageId).toBe(MessageId);
        expect(message?.Attributes?.['ApproximateReceiveCount']).toBe(String(count));
        await node.advanceClock(29_999);
        expect(await receive(queueUrl)).toEqual([]);
        await node.advanceClock(1);
      }
      expect(await receive(queueUrl)).toEqual([]);
      const [deadLetter] = await receive(deadLetterQueueUrl);
      expect(deadLetter?.MessageId).toBe(MessageId);
      expect(deadLetter?.Body).toBe('poison');
      expect(await queueCounts(node.client, queueUrl)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
    });

    it('answers a long poll when a delayed message becomes due on the clock, and an empty one when its wait time passes', async () => {
      const { QueueUrl } = await node.client.send(new CreateQueueCommand({ QueueName: 'delayed' }));
      const queueUrl = QueueUrl as string;
      expect(queueUrl).toBe(node.queueUrl('delayed'));
      const sentAtMs = node.nowMs();
      await node.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'later', DelaySeconds: 10 }));
      expect(await queueCounts(node.client, queueUrl)).toMatchObject({ visible: 0, delayed: 1 });

      const delayedPoll = node.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }));
      const { Messages } = await advanceUntilSettled(node, delayedPoll, 500);
      const answeredAfterMs = node.nowMs() - sentAtMs;
      expect(Messages?.map((m) => m.Body)).toEqual(['later']);
      expect(answeredAfterMs).toBeGreaterThanOrEqual(10_000);
      expect(answeredAfterMs).toBeLessThan(20_000);

      const polledAtMs = node.nowMs();
      const emptyPoll = node.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }));
      const empty = await advanceUntilSettled(node, emptyPoll, 2_000);
      expect(empty.Messages ?? []).toEqual([]);
      expect(node.nowMs() - polledAtMs).toBeGreaterThanOrEqual(20_000);
    });
  },
);

describe('startTestNode', () => {
  it('gives each node of one process its own state and its own clock', async () => {
    const a = await startTestNode();
    const b = await startTestNode();
    try {
      expect(a.endpoint).not.toBe(b.endpoint);
      await a.client.send(new CreateQueueCommand({ QueueName: 'only-on-a' }));
      await a.client.send(new SendMessageCommand({ QueueUrl: a.queueUrl('only-on-a'), MessageBody: 'hello' }));
      expect((await b.client.send(new ListQueuesCommand({}))).QueueUrls ?? []).toEqual([]);
      await expect(b.client.send(new GetQueueUrlCommand({ QueueName: 'only-on-a' }))).rejects.toMatchObject({
        name: 'QueueDoesNotExist',
      });
      expect((await a.client.send(new ListQueuesCommand({}))).QueueUrls).toEqual([a.queueUrl('only-on-a')]);
      const bBeforeMs = b.nowMs();
      await a.advanceClock(60_000);
      expect(b.nowMs()).toBe(bBeforeMs);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('runs on the real clock when asked: a delayed message arrives by itself, and advanceClock is refused', async () => {
    const node = await startTestNode({ clock: 'real' });
    try {
      await node.client.send(new CreateQueueCommand({ QueueName: 'real-time' }));
      await node.client.send(
        new SendMessageCommand({ QueueUrl: node.queueUrl('real-time'), MessageBody: 'soon', DelaySeconds: 1 }),
      );
      const { Messages } = await node.client.send(
        new ReceiveMessageCommand({ QueueUrl: node.queueUrl('real-time'), WaitTimeSeconds: 10 }),
      );
      expect(Messages?.map((m) => m.Body)).toEqual(['soon']);
      await expect(node.advanceClock(1_000)).rejects.toThrow(/manual clock/);
    } finally {
      await node.stop();
    }
  });

  it('starts the manual clock where asked', async () => {
    const node = await startTestNode({ startAtMs: Date.UTC(2030, 0, 1) });
    try {
      await node.client.send(new CreateQueueCommand({ QueueName: 'dated' }));
      await node.client.send(new SendMessageCommand({ QueueUrl: node.queueUrl('dated'), MessageBody: 'x' }));
      const { Messages } = await node.client.send(
        new ReceiveMessageCommand({ QueueUrl: node.queueUrl('dated'), MessageSystemAttributeNames: ['SentTimestamp'] }),
      );
      expect(Messages?.[0]?.Attributes?.['SentTimestamp']).toBe(String(Date.UTC(2030, 0, 1)));
    } finally {
      await node.stop();
    }
  });
});
