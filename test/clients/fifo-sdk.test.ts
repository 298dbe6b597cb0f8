import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkFixture, type SdkFixture } from '../sqs/support/sdk-fixture.js';
import { DeliveryAbandoner } from './delivery-abandoner.js';
import { FifoOrderTracker } from './fifo-order-tracker.js';
import { deliveredMessageOf, sendFifoBatches } from './send-fifo-batches.js';

/**
 * @aws-sdk/client-sqs, unmodified, against a real node: FIFO order under concurrent consumers with
 * visibility expiries and redeliveries, dead-letter redrive after maxReceiveCount, and a message
 * move task that the leader's background tick carries out.
 */

let fixture: SdkFixture;

beforeAll(async () => {
  fixture = await startSdkFixture({ maxAttempts: 5 });
});

afterAll(async () => {
  await fixture?.close();
});

async function createQueue(name: string, attributes: Record<string, string>): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await fixture.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const url = QueueUrl as string;
  const { Attributes } = await fixture.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.['QueueArn'] as string };
}

async function countMessages(url: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await fixture.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.['ApproximateNumberOfMessages']),
    inFlight: Number(Attributes?.['ApproximateNumberOfMessagesNotVisible']),
  };
}

/** Polls `check` until it holds, at most `boundMs` (the leader's tick runs once a second). */
async function eventually(check: () => Promise<boolean>, boundMs: number, what: string): Promise<void> {
  const deadlineMs = Date.now() + boundMs;
  while (Date.now() < deadlineMs) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not within ${boundMs} ms: ${what}`);
}

describe('FIFO through @aws-sdk/client-sqs', () => {
  it('8 concurrent consumers over 50 groups see every group in SequenceNumber order, through visibility expiries and redeliveries', async () => {
    const groupCount = 50;
    const perGroup = 4;
    const { url } = await createQueue('sdk-order.fifo', { FifoQueue: 'true', VisibilityTimeout: '2' });
    const tracker = new FifoOrderTracker();
    // Sends interleave the groups, ten entries per batch, as a producer of many groups would.
    const entries = Array.from({ length: groupCount * perGroup }, (_, i) => ({
      group: `g${i % groupCount}`,
      body: `m${i}`,
    }));
    await sendFifoBatches(fixture.sqs, url, entries, tracker);
    expect(tracker.sentCount).toBe(groupCount * perGroup);

    const abandoner = new DeliveryAbandoner(9);
    const deadlineMs = Date.now() + 90_000;
    const consume = async () => {
      while (tracker.deletedCount < tracker.sentCount && Date.now() < deadlineMs) {
        const out = await fixture.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const messages = out.Messages ?? [];
        tracker.noteReceived(messages.map(deliveredMessageOf));
        // Every ninth first delivery is abandoned (a consumer that crashed), with the rest of its group in this batch.
        const toDelete = abandoner.handledOf(messages);
        if (toDelete.length === 0) continue;
        for (const message of toDelete) tracker.noteDeleteStarted(message.MessageId as string);
        const deleted = await fixture.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: url,
            Entries: toDelete.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle as string })),
          }),
        );
        expect(deleted.Failed ?? []).toEqual([]);
      }
    };
    await Promise.all(Array.from({ length: 8 }, consume));

    expect(tracker.problems).toEqual([]);
    expect(tracker.undelivered()).toEqual([]);
    expect(tracker.deletedCount).toBe(tracker.sentCount);
    expect(tracker.redeliveries).toBeGreaterThan(0);
    // A delete that raced a visibility expiry was a no-op: such a message comes back; drain it.
    await eventually(
      async () => {
        const out = await fixture.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const messages = out.Messages ?? [];
        tracker.noteReceived(messages.map(deliveredMessageOf));
        if (messages.length > 0) {
          await fixture.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle as string })),
            }),
          );
        }
        const counts = await countMessages(url);
        return messages.length === 0 && counts.visible === 0 && counts.inFlight === 0;
      },
      30_000,
      'the FIFO queue drained',
    );
    expect(tracker.problems).toEqual([]);
  }, 150_000);

  it('moves a message that exceeded maxReceiveCount to the FIFO dead-letter queue with a new sequence number, and a move task returns it to its source', async () => {
    const dlq = await createQueue('sdk-dead.fifo', { FifoQueue: 'true' });
    const source = await createQueue('sdk-source.fifo', {
      FifoQueue: 'true',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 }),
    });
    const sent = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.url,
        Entries: [
          {
            Id: 'a',
            MessageBody: 'poison',
            MessageGroupId: 'g',
            MessageDeduplicationId: 'poison',
            MessageAttributes: { kind: { DataType: 'String', StringValue: 'bad' } },
          },
          { Id: 'b', MessageBody: 'next', MessageGroupId: 'g', MessageDeduplicationId: 'next' },
        ],
      }),
    );
    const poisonId = sent.Successful?.find((s) => s.Id === 'a')?.MessageId as string;
    // A message sent to the dead-letter queue itself fixes where its own sequence counter stands.
    const direct = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.url,
        Entries: [{ Id: 'd', MessageBody: 'direct', MessageGroupId: 'other', MessageDeduplicationId: 'direct' }],
      }),
    );
    const directSequence = BigInt(direct.Successful?.[0]?.SequenceNumber as string);
    const directMessage = await fixture.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: dlq.url, MaxNumberOfMessages: 1 }),
    );
    await fixture.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: dlq.url,
        Entries: [{ Id: 'd', ReceiptHandle: directMessage.Messages?.[0]?.ReceiptHandle as string }],
      }),
    );

    // Two receives that give the poison message back at once (visibility 0) use up its receives.
    for (let i = 1; i <= 2; i++) {
      const out = await fixture.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: source.url,
          MaxNumberOfMessages: 1,
          VisibilityTimeout: 0,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      expect(out.Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([
        ['poison', String(i)],
      ]);
    }
    // The third receive moves it in the same transaction and delivers the next message instead.
    const third = await fixture.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: source.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    expect(third.Messages?.map((m) => m.Body)).toEqual(['next']);

    const dead = await fixture.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlq.url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const copy = dead.Messages?.[0];
    expect(dead.Messages).toHaveLength(1);
    expect(copy?.MessageId).toBe(poisonId);
    expect(copy?.Body).toBe('poison');
    expect(copy?.MessageAttributes?.['kind']?.StringValue).toBe('bad');
    expect(copy?.Attributes?.DeadLetterQueueSourceArn).toBe(source.arn);
    expect(copy?.Attributes?.MessageGroupId).toBe('g');
    // The copy takes the dead-letter queue's next sequence number, not its source's.
    expect(BigInt(copy?.Attributes?.SequenceNumber as string) > directSequence).toBe(true);
    const sources = await fixture.sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.url }));
    expect(sources.queueUrls).toEqual([source.url]);

    // Back to its source: no DestinationArn. The leader's tick carries the task out.
    await fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn }));
    await eventually(
      async () => {
        const tasks = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlq.arn }));
        return tasks.Results?.[0]?.Status === 'COMPLETED';
      },
      20_000,
      'the move task completed',
    );
    const tasks = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlq.arn }));
    expect(tasks.Results?.[0]).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 1 });
    expect(await countMessages(dlq.url)).toEqual({ visible: 0, inFlight: 0 });
    await eventually(
      async () => {
        const back = await fixture.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: source.url,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 0,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        return (back.Messages ?? []).some((m) => m.Body === 'poison' && m.MessageId === poisonId);
      },
      5_000,
      'the moved message is receivable in its source again',
    );
  }, 60_000);

  it('moves standard messages past maxReceiveCount to a standard dead-letter queue and back with a move task to an explicit destination', async () => {
    const dlq = await createQueue('sdk-dead', {});
    const source = await createQueue('sdk-source', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 1 }),
    });
    const bodies = ['s1', 's2', 's3'];
    await fixture.sqs.send(
      new SendMessageBatchCommand({ QueueUrl: source.url, Entries: bodies.map((b) => ({ Id: b, MessageBody: b })) }),
    );
    await eventually(
      async () => {
        await fixture.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: source.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
        );
        return (await countMessages(dlq.url)).visible === bodies.length;
      },
      10_000,
      'every message dead-lettered',
    );
    expect(await countMessages(source.url)).toEqual({ visible: 0, inFlight: 0 });
    await fixture.sqs.send(
      new StartMessageMoveTaskCommand({
        SourceArn: dlq.arn,
        DestinationArn: source.arn,
        MaxNumberOfMessagesPerSecond: 50,
      }),
    );
    await eventually(
      async () => (await countMessages(source.url)).visible === bodies.length,
      20_000,
      'every message moved back',
    );
    expect(await countMessages(dlq.url)).toEqual({ visible: 0, inFlight: 0 });
  }, 60_000);
});
