import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { Consumer } from 'sqs-consumer';
import { Producer } from 'sqs-producer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkFixture, type SdkFixture } from '../sqs/support/sdk-fixture.js';

/**
 * sqs-producer and sqs-consumer 14.x, unmodified, moving thousands of messages through raftq at
 * the same time: every message produced is consumed, and the queue ends empty.
 */

const messageCount = 3_000;

let fixture: SdkFixture;

beforeAll(async () => {
  fixture = await startSdkFixture();
});

afterAll(async () => {
  await fixture?.close();
});

describe('sqs-producer and sqs-consumer', () => {
  it(`move ${messageCount} messages with none lost`, async () => {
    const { QueueUrl } = await fixture.sqs.send(
      new CreateQueueCommand({ QueueName: 'consumer-producer', Attributes: { VisibilityTimeout: '30' } }),
    );
    const queueUrl = QueueUrl as string;
    const producer = Producer.create({ queueUrl, sqs: fixture.sqs, batchSize: 10 });

    const seen = new Map<string, number>();
    const errors: Error[] = [];
    let resolveAll: () => void = () => {};
    const allSeen = new Promise<void>((resolve) => (resolveAll = resolve));
    const consumer = Consumer.create({
      queueUrl,
      sqs: fixture.sqs,
      batchSize: 10,
      waitTimeSeconds: 1,
      messageAttributeNames: ['All'],
      handleMessageBatch: async (messages) => {
        for (const message of messages) {
          const id = message.MessageAttributes?.['seq']?.StringValue ?? `missing:${message.Body}`;
          seen.set(id, (seen.get(id) ?? 0) + 1);
        }
        if (seen.size >= messageCount) resolveAll();
        return messages;
      },
    });
    consumer.on('error', (err) => errors.push(err));
    consumer.on('processing_error', (err) => errors.push(err));
    consumer.start();

    const sentIds: string[] = [];
    for (let start = 0; start < messageCount; start += 100) {
      const chunk = Array.from({ length: Math.min(100, messageCount - start) }, (_, i) => {
        const seq = String(start + i);
        sentIds.push(seq);
        return {
          id: `m${seq}`,
          body: `message ${seq}`,
          messageAttributes: { seq: { DataType: 'String', StringValue: seq } },
        };
      });
      const results = await producer.send(chunk);
      expect(results).toHaveLength(chunk.length);
    }

    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`only ${seen.size} of ${messageCount} messages consumed`)), 90_000).unref(),
    );
    await Promise.race([allSeen, timeout]);
    await new Promise<void>((resolve) => {
      consumer.once('stopped', () => resolve());
      consumer.stop({ abort: false });
    });

    expect(errors).toEqual([]);
    const missing = sentIds.filter((id) => !seen.has(id));
    expect(missing).toEqual([]);
    expect(seen.size).toBe(messageCount);
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(Attributes?.['ApproximateNumberOfMessages']).toBe('0');
  }, 120_000);
});
