import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterCauseAttributeName, decodeDeadLetterCauseRecord } from '../../src/base/dead-letter-cause.js';
import {
  ClientOptionsError,
  consume,
  DeadLetterQueueMissingError,
  doNotRetry,
  QueueFailedError,
  type Delivery,
} from '../../src/client/index.js';
import {
  createQueuePair,
  deferred,
  queueCounts,
  receiveOnce,
  startClientFixture,
  within,
  type ClientFixture,
} from './support/client-fixture.js';
import { pollUntilNonEmpty, startConsumer } from './support/running-consumer.js';
import { startTestNode } from '../../src/testing/index.js';
import { observedClient } from '../testing/support/test-node-helpers.js';

/**
 * consume() against a real raftq node: each guarantee of the client library, shown on the wire.
 * Visibility timeouts are 1-2 s so that redeliveries happen within the test.
 */

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});

afterAll(async () => {
  await fixture?.close();
});

async function send(queueUrl: string, body: string): Promise<string> {
  const { MessageId } = await fixture.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  return MessageId as string;
}

class OrderRejectedError extends Error {
  override readonly name = 'OrderRejectedError';
  readonly code = 'E_REJECTED';
}

describe('consume()', () => {
  it('hands each message to the handler with receive count 1 and deletes it once the handler returns', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await send(queueUrl, 'one');
    await send(queueUrl, 'two');
    const seen: Array<{ body: string; receiveCount: number }> = [];
    const bothSeen = deferred();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 5,
      handler: (delivery) => {
        seen.push({ body: delivery.message.body, receiveCount: delivery.receiveCount });
        if (seen.length === 2) bothSeen.resolve();
      },
    });
    await within(bothSeen.promise, 10_000, 'both deliveries');
    await consumer.stop();
    expect(seen.map((s) => s.body).sort()).toEqual(['one', 'two']);
    expect(seen.every((s) => s.receiveCount === 1)).toBe(true);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('redelivers a message whose consumer process was killed mid-handler, with its receive count incremented', async () => {
    const script = fileURLToPath(new URL('./support/crash-consumer.mjs', import.meta.url));
    expect(
      existsSync(fileURLToPath(new URL('../../dist/src/client/index.js', import.meta.url))),
      'the crash test runs the built library: npm run build',
    ).toBe(true);
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
    const messageId = await send(queueUrl, 'crash me');
    const child = spawn(process.execPath, [script, fixture.endpoint.endpoint, queueUrl, '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const lines = createInterface({ input: child.stdout! });
      const firstLine = await within(
        new Promise<string>((resolve) => lines.once('line', resolve)),
        20_000,
        'the child handler start',
      );
      expect(JSON.parse(firstLine)).toEqual({ started: messageId, receiveCount: 1, body: 'crash me' });
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const redelivered = deferred<Delivery>();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 5,
      handler: (d) => redelivered.resolve(d),
    });
    const delivery = await within(redelivered.promise, 15_000, 'the redelivery');
    await consumer.stop();
    expect(delivery.message.messageId).toBe(messageId);
    expect(delivery.receiveCount).toBe(2);
  });

  it('dead-letters a message whose handler always throws after maxReceiveCount deliveries, with the error as its cause', async () => {
    const { queueUrl, queueArn, deadLetterQueueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    const messageId = await send(queueUrl, 'poison');
    const counts: number[] = [];
    const lastAttempt = deferred();
    const errors: string[] = [];
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 5,
      onError: (_error, context) => errors.push(context.stage),
      handler: (delivery) => {
        counts.push(delivery.receiveCount);
        if (delivery.receiveCount === 3) lastAttempt.resolve();
        throw new OrderRejectedError('order 17 has no lines');
      },
    });
    await within(lastAttempt.promise, 15_000, 'the third delivery');
    const [copy] = await within(
      pollUntilNonEmpty(() => receiveOnce(fixture.sqs, deadLetterQueueUrl, { waitTimeSeconds: 1 })),
      15_000,
      'the dead letter',
    );
    await consumer.stop();

    expect(counts).toEqual([1, 2, 3]);
    expect(errors.filter((stage) => stage === 'handler')).toHaveLength(3);
    expect(copy?.MessageId).toBe(messageId);
    expect(copy?.Body).toBe('poison');
    expect(copy?.Attributes?.['DeadLetterQueueSourceArn']).toBe(queueArn);
    const record = decodeDeadLetterCauseRecord(
      copy?.MessageAttributes?.[deadLetterCauseAttributeName]?.StringValue ?? '',
    );
    expect(record?.cause).toEqual({ name: 'OrderRejectedError', code: 'E_REJECTED', message: 'order 17 has no lines' });
    expect(record?.receiveCount).toBe(3);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('dead-letters a message at its first failure when the handler marks it doNotRetry', async () => {
    const { queueUrl, deadLetterQueueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 10 });
    await send(queueUrl, '{not json');
    let calls = 0;
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 5,
      handler: (delivery) => {
        calls++;
        try {
          JSON.parse(delivery.message.body);
        } catch (error) {
          throw doNotRetry(error);
        }
      },
    });
    const [copy] = await within(
      pollUntilNonEmpty(() => receiveOnce(fixture.sqs, deadLetterQueueUrl, { waitTimeSeconds: 1 })),
      15_000,
      'the dead letter',
    );
    await consumer.stop();
    expect(calls).toBe(1);
    const record = decodeDeadLetterCauseRecord(
      copy?.MessageAttributes?.[deadLetterCauseAttributeName]?.StringValue ?? '',
    );
    expect(record?.cause.name).toBe('SyntaxError');
    expect(record?.receiveCount).toBe(1);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('extends the lease of a slow handler so that a second consumer never receives its message meanwhile', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5, visibilityTimeoutSeconds: 2 });
    const messageId = await send(queueUrl, 'slow work');
    const started = deferred<Delivery>();
    const release = deferred();
    const finished = deferred();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 2,
      handler: async (delivery) => {
        started.resolve(delivery);
        await release.promise;
        finished.resolve();
      },
    });
    const delivery = await within(started.promise, 10_000, 'the slow handler start');
    // Three visibility timeouts of polling by another client: without extensions the message
    // would come back after the first.
    const other = fixture.newClient();
    const stolen: string[] = [];
    for (let poll = 0; poll < 3; poll++) {
      for (const message of await receiveOnce(other, queueUrl, { waitTimeSeconds: 2, visibilityTimeoutSeconds: 30 }))
        stolen.push(message.MessageId as string);
    }
    release.resolve();
    await finished.promise;
    await consumer.stop();
    expect(stolen).toEqual([]);
    expect(delivery.message.messageId).toBe(messageId);
    expect(delivery.lease.signal.aborted).toBe(false);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('waits a doubling retry delay between failed deliveries, capped by retryDelayMsMax', async () => {
    // On a node of its own with the manual clock: the delays are measured in clock ms, exactly.
    const node = await startTestNode();
    const observed = observedClient(node);
    try {
      const { queueUrl } = await createQueuePair(node.client, { maxReceiveCount: 4 });
      await node.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'flaky downstream' }));
      const deliveredAtMs: number[] = [];
      const consumer = startConsumer({
        queueUrl,
        client: observed.client,
        visibilityTimeoutSeconds: 10,
        retryDelayMs: 1_000,
        retryDelayMsMax: 2_000,
        handler: () => {
          deliveredAtMs.push(node.nowMs());
          throw new Error('downstream unavailable');
        },
      });
      const expectedGapsMs = [1_000, 2_000, 2_000];
      try {
        for (const [i, gapMs] of expectedGapsMs.entries()) {
          // The retry delay of delivery i+1 is set once its ChangeMessageVisibility is answered.
          await within(
            observed.until(() => observed.answered('ChangeMessageVisibilityCommand') >= i + 1),
            10_000,
            `retry ${i + 1} to be set`,
          );
          await node.advanceClock(gapMs - 1);
          expect(deliveredAtMs).toHaveLength(i + 1);
          await node.advanceClock(1);
          await within(
            observed.until(() => deliveredAtMs.length >= i + 2),
            10_000,
            `delivery ${i + 2}`,
          );
        }
      } finally {
        await consumer.stop();
      }
      // Delays 1 s, 2 s, then 2 s again (the ceiling).
      expect(deliveredAtMs.slice(1).map((atMs, i) => atMs - (deliveredAtMs[i] as number))).toEqual(expectedGapsMs);
    } finally {
      observed.client.destroy();
      await node.stop();
    }
  });

  it('stops receiving on abort, lets the running handler finish, acknowledges it and then resolves', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
    await send(queueUrl, 'in progress');
    const started = deferred();
    const release = deferred();
    const handled: string[] = [];
    let hasResolved = false;
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 5,
      gracePeriodMs: 30_000,
      handler: async (delivery) => {
        started.resolve();
        await release.promise;
        handled.push(delivery.message.body);
      },
    });
    void consumer.finished.then(() => (hasResolved = true));
    await within(started.promise, 10_000, 'the handler start');
    consumer.abort();
    await send(queueUrl, 'sent after the stop');
    // Still draining: the handler has not returned, so consume() has not resolved.
    await new Promise((resolve) => setImmediate(resolve));
    expect(hasResolved).toBe(false);
    release.resolve();
    await within(consumer.finished, 10_000, 'consume() resolving');
    expect(handled).toEqual(['in progress']);
    // The first message was deleted; the one sent after the stop was never received.
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 1, notVisible: 0 });
  });

  it('abandons a handler still running when the grace period ends: its lease signal aborts and the message comes back', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
    const messageId = await send(queueUrl, 'never finishes');
    const started = deferred<Delivery>();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      visibilityTimeoutSeconds: 1,
      gracePeriodMs: 100,
      handler: async (delivery) => {
        started.resolve(delivery);
        await new Promise(() => {});
      },
    });
    const delivery = await within(started.promise, 10_000, 'the handler start');
    consumer.abort();
    await within(consumer.finished, 10_000, 'consume() resolving');
    expect(delivery.lease.signal.aborted).toBe(true);
    const [again] = await within(
      pollUntilNonEmpty(() => receiveOnce(fixture.sqs, queueUrl, { waitTimeSeconds: 2 })),
      10_000,
      'the message coming back',
    );
    expect(again?.MessageId).toBe(messageId);
    expect(again?.Attributes?.['ApproximateReceiveCount']).toBe('2');
  });

  it('runs at most `parallelism` handlers at once', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
    for (let i = 0; i < 9; i++) await send(queueUrl, `m${i}`);
    let running = 0;
    let runningMax = 0;
    const handled = new Set<string>();
    const allHandled = deferred();
    // Handlers hold until two run at once, so overlap is certain rather than left to timing.
    const twoRunning = deferred();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      parallelism: 3,
      visibilityTimeoutSeconds: 10,
      handler: async (delivery) => {
        running++;
        runningMax = Math.max(runningMax, running);
        if (running >= 2) twoRunning.resolve();
        await twoRunning.promise;
        await new Promise((resolve) => setTimeout(resolve, 50));
        running--;
        handled.add(delivery.message.body);
        if (handled.size === 9) allHandled.resolve();
      },
    });
    await within(allHandled.promise, 20_000, 'all nine messages handled');
    await consumer.stop();
    expect(runningMax).toBeLessThanOrEqual(3);
    expect(runningMax).toBeGreaterThan(1);
  });

  it('acknowledges handled messages in DeleteMessageBatch requests of at most 10, deleting every one', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5 });
    for (let i = 0; i < 20; i++) await send(queueUrl, `ack ${i}`);
    const client = fixture.newClient();
    const deleteBatchSizes: number[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'DeleteMessageBatchCommand')
          deleteBatchSizes.push((args.input as { Entries: unknown[] }).Entries.length);
        if (context.commandName === 'DeleteMessageCommand') deleteBatchSizes.push(-1);
        return next(args);
      },
      { step: 'initialize', name: 'countDeletes' },
    );
    let handled = 0;
    const allHandled = deferred();
    const consumer = startConsumer({
      queueUrl,
      client,
      parallelism: 10,
      visibilityTimeoutSeconds: 10,
      handler: () => {
        if (++handled === 20) allHandled.resolve();
      },
    });
    await within(allHandled.promise, 15_000, 'twenty messages handled');
    await consumer.stop();
    expect(deleteBatchSizes.every((size) => size >= 1 && size <= 10)).toBe(true);
    expect(deleteBatchSizes.reduce((sum, size) => sum + size, 0)).toBe(20);
    expect(deleteBatchSizes.length).toBeLessThan(20);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('rejects when the queue cannot be consumed: it does not exist, has no RedrivePolicy, or has a zero VisibilityTimeout and none was given', async () => {
    const signal = new AbortController().signal;
    const handler = () => {};
    const missingUrl = `${fixture.endpoint.endpoint}/000000000000/no-such-queue-${process.pid}`;
    await expect(
      consume({ queueUrl: missingUrl, client: fixture.sqs, signal, handlerIsIdempotent: true, handler }),
    ).rejects.toBeInstanceOf(QueueFailedError);

    const plain = await fixture.sqs.send(new CreateQueueCommand({ QueueName: `plain-${process.pid}` }));
    await expect(
      consume({ queueUrl: plain.QueueUrl as string, client: fixture.sqs, signal, handlerIsIdempotent: true, handler }),
    ).rejects.toBeInstanceOf(DeadLetterQueueMissingError);

    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 3, visibilityTimeoutSeconds: 0 });
    await expect(
      consume({ queueUrl, client: fixture.sqs, signal, handlerIsIdempotent: true, handler }),
    ).rejects.toBeInstanceOf(ClientOptionsError);
  });
});
