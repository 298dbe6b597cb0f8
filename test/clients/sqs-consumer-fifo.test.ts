import { CreateQueueCommand, GetQueueAttributesCommand, type Message } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkFixture, type SdkFixture } from '../sqs/support/sdk-fixture.js';
import { DeliveryAbandoner } from './delivery-abandoner.js';
import { FifoOrderTracker } from './fifo-order-tracker.js';
import { deliveredMessageOf, sendFifoBatches } from './send-fifo-batches.js';

/**
 * sqs-consumer 14.x, unmodified: 8 consumers on one FIFO queue of 50 groups. Each batch handler
 * acknowledges what it handled; what it abandons comes back after the visibility timeout. Every
 * group must be handled in the SequenceNumber order its sends returned.
 */

let fixture: SdkFixture;

beforeAll(async () => {
  fixture = await startSdkFixture({ maxAttempts: 5 });
});

afterAll(async () => {
  await fixture?.close();
});

describe('sqs-consumer on a FIFO queue', () => {
  it('8 consumers over 50 groups handle every group in SequenceNumber order, abandoned messages coming back first', async () => {
    const { QueueUrl } = await fixture.sqs.send(
      new CreateQueueCommand({
        QueueName: 'consumer-order.fifo',
        Attributes: { FifoQueue: 'true', VisibilityTimeout: '2' },
      }),
    );
    const queueUrl = QueueUrl as string;
    const tracker = new FifoOrderTracker();
    const entries = Array.from({ length: 200 }, (_, i) => ({ group: `g${i % 50}`, body: `m${i}` }));
    await sendFifoBatches(fixture.sqs, queueUrl, entries, tracker);

    const abandoner = new DeliveryAbandoner(7);
    const errors: Error[] = [];
    let resolveDone: () => void = () => {};
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const handleMessageBatch = async (messages: Message[]): Promise<Message[]> => {
      tracker.noteReceived(messages.map(deliveredMessageOf));
      // Every seventh first delivery fails, and so does the rest of its group in this batch.
      const handled = abandoner.handledOf(messages);
      // sqs-consumer deletes what the handler returns, right after it returns.
      for (const message of handled) tracker.noteDeleteStarted(message.MessageId as string);
      if (tracker.deletedCount >= tracker.sentCount) resolveDone();
      return handled;
    };
    const consumers = Array.from({ length: 8 }, () =>
      // The library warns that it does not promise FIFO order itself: this test checks the order it saw.
      Consumer.create({
        queueUrl,
        sqs: fixture.sqs,
        batchSize: 10,
        waitTimeSeconds: 1,
        messageSystemAttributeNames: ['All'],
        attributeNames: ['All'],
        suppressFifoWarning: true,
        handleMessageBatch,
      }),
    );
    for (const consumer of consumers) {
      consumer.on('error', (err) => errors.push(err));
      consumer.on('processing_error', (err) => errors.push(err));
      consumer.start();
    }
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`only ${tracker.deletedCount} of ${tracker.sentCount} handled`)),
        90_000,
      ).unref(),
    );
    try {
      await Promise.race([done, timeout]);
    } finally {
      await Promise.all(
        consumers.map(
          (consumer) =>
            new Promise<void>((resolve) => {
              consumer.once('stopped', () => resolve());
              consumer.stop({ abort: false });
            }),
        ),
      );
    }

    expect(errors).toEqual([]);
    expect(tracker.problems).toEqual([]);
    expect(tracker.undelivered()).toEqual([]);
    expect(tracker.redeliveries).toBeGreaterThan(0);
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(Attributes?.['ApproximateNumberOfMessages']).toBe('0');
  }, 120_000);
});
