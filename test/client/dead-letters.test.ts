import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deadLetters,
  DeadLetterNotFoundError,
  DeadLetterQueueMissingError,
  deleteDeadLetter,
  doNotRetry,
  replayDeadLetter,
  type DeadLetter,
} from '../../src/client/index.js';
import { hasDeadLetterExtension } from '../../src/client/dead-letter-move.js';
import {
  createQueuePair,
  deferred,
  queueCounts,
  receiveOnce,
  startClientFixture,
  within,
  type ClientFixture,
  type QueuePair,
} from './support/client-fixture.js';
import { startPlainSqsProxy, type PlainSqsProxy } from './support/plain-sqs-proxy.js';
import { pollUntilNonEmpty, startConsumer } from './support/running-consumer.js';

/**
 * Dead letters against a real raftq node: read with their causes without being consumed, replayed
 * onto their source with a fresh receive count, deleted for good — and the same through a proxy
 * that makes raftq look like a plain SQS, where dead-lettering falls back to copy-then-delete.
 */

let fixture: ClientFixture;
let proxy: PlainSqsProxy;

beforeAll(async () => {
  fixture = await startClientFixture();
  proxy = await startPlainSqsProxy(fixture.endpoint.endpoint);
});

afterAll(async () => {
  await proxy?.close();
  await fixture?.close();
});

class PaymentDeclinedError extends Error {
  override readonly name = 'PaymentDeclinedError';
  readonly code = 'E_DECLINED';
}

/** Sends `bodies`, consumes them with a handler that rejects each for good, and stops once all are dead. */
async function deadLetterAll(client: SQSClient, pair: QueuePair, bodies: string[]): Promise<void> {
  for (const body of bodies) await client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: body }));
  const condemned = new Set<string>();
  const allCondemned = deferred();
  const failures: unknown[] = [];
  const consumer = startConsumer({
    queueUrl: pair.queueUrl,
    client,
    visibilityTimeoutSeconds: 5,
    onError: (error, context) => {
      if (context.stage !== 'handler') failures.push(error);
    },
    handler: (delivery) => {
      condemned.add(delivery.message.body);
      if (condemned.size === bodies.length) allCondemned.resolve();
      throw doNotRetry(new PaymentDeclinedError(`payment for ${delivery.message.body} declined`));
    },
  });
  await within(allCondemned.promise, 15_000, 'every message handled');
  // The last verdict follows the last handler; wait until the source queue is empty.
  await within(
    (async () => {
      while ((await queueCounts(client, pair.queueUrl)).notVisible > 0)
        await new Promise((resolve) => setTimeout(resolve, 50));
    })(),
    10_000,
    'the source queue emptying',
  );
  await consumer.stop();
  expect(failures).toEqual([]);
}

describe('deadLetters()', () => {
  it('lists the dead letters of a source queue with their causes, and reading them consumes nothing', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await deadLetterAll(fixture.sqs, pair, ['order-1', 'order-2']);

    const first = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    expect(first.map((d) => d.body).sort()).toEqual(['order-1', 'order-2']);
    for (const dead of first) {
      expect(dead.cause).toEqual({
        name: 'PaymentDeclinedError',
        code: 'E_DECLINED',
        message: `payment for ${dead.body} declined`,
      });
      expect(dead.receiveCount).toBe(1);
      expect(dead.sourceMessageId).toBe(dead.messageId);
      expect(dead.messageAttributes).toEqual({});
    }
    // Still there, visible, for the next reader.
    expect(await queueCounts(fixture.sqs, pair.deadLetterQueueUrl)).toEqual({ visible: 2, notVisible: 0 });
    const second = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    expect(second.map((d) => d.messageId).sort()).toEqual(first.map((d) => d.messageId).sort());
    expect(await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs, max: 1 })).toHaveLength(1);
  });

  it('reports a message the queue moved by itself after maxReceiveCount receives as MaxReceiveCountExceeded', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 1, visibilityTimeoutSeconds: 1 });
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: 'abandoned' }));
    expect(await receiveOnce(fixture.sqs, pair.queueUrl, { visibilityTimeoutSeconds: 1 })).toHaveLength(1);
    // The next receive after the timeout finds the message over its count and moves it.
    let dead: DeadLetter[] = [];
    await within(
      (async () => {
        while (
          (await receiveOnce(fixture.sqs, pair.queueUrl, { waitTimeSeconds: 1 })).length === 0 &&
          dead.length === 0
        ) {
          dead = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
        }
      })(),
      15_000,
      'the queue moving the message',
    );
    expect(dead).toHaveLength(1);
    expect(dead[0]?.body).toBe('abandoned');
    expect(dead[0]?.cause.name).toBe('MaxReceiveCountExceeded');
    expect(dead[0]?.receiveCount).toBe(1);
  });

  it('lists only the dead letters that came from the queue asked about', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await deadLetterAll(fixture.sqs, pair, ['mine']);
    await fixture.sqs.send(
      new SendMessageCommand({ QueueUrl: pair.deadLetterQueueUrl, MessageBody: 'put there by hand' }),
    );
    const dead = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    expect(dead.map((d) => d.body)).toEqual(['mine']);
  });

  it('refuses a source queue without a RedrivePolicy', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await expect(deadLetters({ queueUrl: pair.deadLetterQueueUrl, client: fixture.sqs })).rejects.toBeInstanceOf(
      DeadLetterQueueMissingError,
    );
  });
});

describe('replayDeadLetter() and deleteDeadLetter()', () => {
  it('replay puts the message back on its source queue with its receive count reset, and removes the dead letter', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await deadLetterAll(fixture.sqs, pair, ['retry me', 'keep me dead']);
    const dead = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    const target = dead.find((d) => d.body === 'retry me') as DeadLetter;

    await replayDeadLetter({ queueUrl: pair.queueUrl, messageId: target.messageId, client: fixture.sqs });

    const [replayed] = await receiveOnce(fixture.sqs, pair.queueUrl, { waitTimeSeconds: 1 });
    expect(replayed?.Body).toBe('retry me');
    expect(replayed?.Attributes?.['ApproximateReceiveCount']).toBe('1');
    expect(Object.keys(replayed?.MessageAttributes ?? {})).toEqual([]);
    const remaining = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    expect(remaining.map((d) => d.body)).toEqual(['keep me dead']);
  });

  it('delete removes one dead letter for good and leaves the others', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await deadLetterAll(fixture.sqs, pair, ['junk', 'evidence']);
    const dead = await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs });
    const junk = dead.find((d) => d.body === 'junk') as DeadLetter;
    await deleteDeadLetter({ queueUrl: pair.queueUrl, messageId: junk.messageId, client: fixture.sqs });
    expect((await deadLetters({ queueUrl: pair.queueUrl, client: fixture.sqs })).map((d) => d.body)).toEqual([
      'evidence',
    ]);
    expect(await queueCounts(fixture.sqs, pair.deadLetterQueueUrl)).toEqual({ visible: 1, notVisible: 0 });
  });

  it('refuses an id the dead-letter queue does not hold, and changes nothing', async () => {
    const pair = await createQueuePair(fixture.sqs, { maxReceiveCount: 3 });
    await deadLetterAll(fixture.sqs, pair, ['present']);
    await expect(
      replayDeadLetter({ queueUrl: pair.queueUrl, messageId: 'no-such-id', client: fixture.sqs }),
    ).rejects.toBeInstanceOf(DeadLetterNotFoundError);
    await expect(
      deleteDeadLetter({ queueUrl: pair.queueUrl, messageId: 'no-such-id', client: fixture.sqs }),
    ).rejects.toBeInstanceOf(DeadLetterNotFoundError);
    expect(await queueCounts(fixture.sqs, pair.deadLetterQueueUrl)).toEqual({ visible: 1, notVisible: 0 });
    expect(await queueCounts(fixture.sqs, pair.queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });
});

describe('against an SQS without the raftq extension', () => {
  it('dead-letters by copy-then-delete with the cause, after asking for the extension once', async () => {
    const client = fixture.newClient(proxy.endpoint);
    const pair = await createQueuePair(client, { maxReceiveCount: 3 });
    const refusedBefore = proxy.refusedExtensionCalls;
    await deadLetterAll(client, pair, ['copied-1', 'copied-2', 'copied-3']);
    expect(proxy.refusedExtensionCalls - refusedBefore).toBe(1);
    expect(hasDeadLetterExtension(client)).toBe(false);

    const dead = await deadLetters({ queueUrl: pair.queueUrl, client });
    expect(dead.map((d) => d.body).sort()).toEqual(['copied-1', 'copied-2', 'copied-3']);
    for (const letter of dead) {
      expect(letter.cause).toEqual({
        name: 'PaymentDeclinedError',
        code: 'E_DECLINED',
        message: `payment for ${letter.body} declined`,
      });
      // A copy is a new message: its id differs from the source's, which the cause keeps.
      expect(letter.sourceMessageId).not.toBe(letter.messageId);
      expect(letter.receiveCount).toBe(1);
    }
    await replayDeadLetter({ queueUrl: pair.queueUrl, messageId: dead[0]!.messageId, client });
    expect(await queueCounts(client, pair.queueUrl)).toEqual({ visible: 1, notVisible: 0 });
  });

  it('on a FIFO pair keeps the message group in the copy', async () => {
    const client = fixture.newClient(proxy.endpoint);
    const pair = await createQueuePair(client, { maxReceiveCount: 3, isFifo: true });
    await client.send(
      new SendMessageCommand({
        QueueUrl: pair.queueUrl,
        MessageBody: 'fifo poison',
        MessageGroupId: 'customer-9',
        MessageDeduplicationId: 'd1',
      }),
    );
    const handled = deferred();
    const consumer = startConsumer({
      queueUrl: pair.queueUrl,
      client,
      visibilityTimeoutSeconds: 5,
      handler: () => {
        handled.resolve();
        throw doNotRetry(new Error('bad'));
      },
    });
    await within(handled.promise, 10_000, 'the FIFO delivery');
    const dead = await within(
      pollUntilNonEmpty(() => deadLetters({ queueUrl: pair.queueUrl, client })),
      15_000,
      'the FIFO dead letter',
    );
    await consumer.stop();
    expect(dead[0]?.body).toBe('fifo poison');
    expect(dead[0]?.messageGroupId).toBe('customer-9');
  });
});
