import {
  AddPermissionCommand,
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueuesCommand,
  ListMessageMoveTasksCommand,
  ListQueueTagsCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  RemovePermissionCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  CancelMessageMoveTaskCommand,
  SetQueueAttributesCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessGateway } from './support/in-process-gateway.js';
import { startSdkFixture, type SdkFixture } from './support/sdk-fixture.js';

/**
 * @aws-sdk/client-sqs, unmodified (JSON protocol, MD5 validation left on), against a real server
 * over a real QueueService: every action and the error paths a client can hit.
 */

let fixture: SdkFixture;

beforeAll(async () => {
  fixture = await startSdkFixture({ maxAttempts: 1 });
});

afterAll(async () => {
  await fixture?.close();
});

async function createQueue(name: string, attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await fixture.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  expect(QueueUrl).toBe(`${fixture.endpoint.endpoint}/000000000000/${name}`);
  return QueueUrl as string;
}

async function expectSqsError(promise: Promise<unknown>, name: string, code: string): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e as Error & { Code?: string; $metadata?: { httpStatusCode?: number } },
  );
  expect(err, `expected ${name}`).toBeDefined();
  expect(err?.name).toBe(name);
  expect((err as { Code?: string }).Code).toBe(code);
  return err as Error;
}

describe('@aws-sdk/client-sqs against raftq', () => {
  it('creates, finds, lists (with pagination) and deletes queues', async () => {
    const url = await createQueue('sdk-life-1');
    await createQueue('sdk-life-2');
    await createQueue('sdk-life-3');
    expect((await fixture.sqs.send(new GetQueueUrlCommand({ QueueName: 'sdk-life-1' }))).QueueUrl).toBe(url);
    const all = await fixture.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'sdk-life-' }));
    expect(all.QueueUrls?.map((u) => u.split('/').pop())).toEqual(['sdk-life-1', 'sdk-life-2', 'sdk-life-3']);
    const page1 = await fixture.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'sdk-life-', MaxResults: 2 }));
    expect(page1.QueueUrls).toHaveLength(2);
    expect(page1.NextToken).toBeDefined();
    const page2 = await fixture.sqs.send(
      new ListQueuesCommand({ QueueNamePrefix: 'sdk-life-', MaxResults: 2, NextToken: page1.NextToken }),
    );
    expect(page2.QueueUrls?.map((u) => u.split('/').pop())).toEqual(['sdk-life-3']);
    await fixture.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    await expectSqsError(
      fixture.sqs.send(new GetQueueUrlCommand({ QueueName: 'sdk-life-1' })),
      'QueueDoesNotExist',
      'AWS.SimpleQueueService.NonExistentQueue',
    );
    await expectSqsError(
      fixture.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' })),
      'QueueDoesNotExist',
      'AWS.SimpleQueueService.NonExistentQueue',
    );
  });

  it('refuses to recreate a queue with different attributes', async () => {
    await createQueue('sdk-exists', { VisibilityTimeout: '10' });
    await expectSqsError(
      fixture.sqs.send(new CreateQueueCommand({ QueueName: 'sdk-exists', Attributes: { VisibilityTimeout: '11' } })),
      'QueueNameExists',
      'QueueAlreadyExists',
    );
    await expectSqsError(
      fixture.sqs.send(new CreateQueueCommand({ QueueName: 'bad name!' })),
      'InvalidParameterValue',
      'InvalidParameterValue',
    );
  });

  it('gets and sets attributes, tags and permissions', async () => {
    const url = await createQueue('sdk-attrs', { DelaySeconds: '0' });
    await fixture.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: url,
        Attributes: { VisibilityTimeout: '45', MessageRetentionPeriod: '3600' },
      }),
    );
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    expect(Attributes).toMatchObject({
      VisibilityTimeout: '45',
      MessageRetentionPeriod: '3600',
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:sdk-attrs',
      ApproximateNumberOfMessages: '0',
    });
    await expectSqsError(
      fixture.sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { VisibilityTimeout: '99999' } })),
      'InvalidAttributeValue',
      'InvalidAttributeValue',
    );

    await fixture.sqs.send(new TagQueueCommand({ QueueUrl: url, Tags: { team: 'core', env: 'test' } }));
    await fixture.sqs.send(new UntagQueueCommand({ QueueUrl: url, TagKeys: ['env'] }));
    expect((await fixture.sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags).toEqual({ team: 'core' });

    await fixture.sqs.send(
      new AddPermissionCommand({
        QueueUrl: url,
        Label: 'p1',
        AWSAccountIds: ['111122223333'],
        Actions: ['SendMessage'],
      }),
    );
    const withPolicy = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Policy'] }),
    );
    expect(withPolicy.Attributes?.['Policy']).toContain('p1');
    await fixture.sqs.send(new RemovePermissionCommand({ QueueUrl: url, Label: 'p1' }));
  });

  it('sends and receives with attributes, MD5s validated by the SDK, and deletes', async () => {
    const url = await createQueue('sdk-messages');
    const sent = await fixture.sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'héllo 😀',
        MessageAttributes: {
          city: { DataType: 'String', StringValue: 'Oslo' },
          n: { DataType: 'Number.int', StringValue: '42' },
          raw: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 255]) },
        },
        MessageSystemAttributes: {
          AWSTraceHeader: { DataType: 'String', StringValue: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1' },
        },
      }),
    );
    expect(sent.MessageId).toBeDefined();
    expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(sent.MD5OfMessageSystemAttributes).toMatch(/^[0-9a-f]{32}$/);

    const received = await fixture.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MaxNumberOfMessages: 10,
      }),
    );
    const [message] = received.Messages ?? [];
    expect(message?.Body).toBe('héllo 😀');
    expect(message?.MessageId).toBe(sent.MessageId);
    expect(message?.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(message?.MessageAttributes?.['raw']?.BinaryValue).toEqual(new Uint8Array([0, 1, 255]));
    expect(message?.Attributes).toMatchObject({
      SenderId: '000000000000',
      ApproximateReceiveCount: '1',
      AWSTraceHeader: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1',
    });
    await fixture.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message?.ReceiptHandle }));
    const after = await fixture.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(after.Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  });

  it('runs every batch action and reports per-entry failures', async () => {
    const url = await createQueue('sdk-batch');
    const batch = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'bad \u0000 body' },
          { Id: 'c', MessageBody: 'three', DelaySeconds: 0 },
        ],
      }),
    );
    expect(batch.Successful?.map((e) => e.Id)).toEqual(['a', 'c']);
    expect(batch.Failed).toEqual([
      expect.objectContaining({ Id: 'b', Code: 'InvalidMessageContents', SenderFault: true }),
    ]);

    const { Messages = [] } = await fixture.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
    );
    expect(Messages.map((m) => m.Body).sort()).toEqual(['one', 'three']);
    const visibility = await fixture.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'x', ReceiptHandle: Messages[0]?.ReceiptHandle, VisibilityTimeout: 0 },
          { Id: 'y', ReceiptHandle: 'not-a-handle', VisibilityTimeout: 0 },
        ],
      }),
    );
    expect(visibility.Successful).toEqual([{ Id: 'x' }]);
    expect(visibility.Failed?.[0]).toMatchObject({ Id: 'y', Code: 'ReceiptHandleIsInvalid', SenderFault: true });
    await fixture.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url,
        ReceiptHandle: Messages[1]?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );

    const again = await fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    expect(again.Messages).toHaveLength(2);
    const deleted = await fixture.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: (again.Messages ?? []).map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
      }),
    );
    expect(deleted.Successful).toHaveLength(2);
    expect(deleted.Failed).toEqual([]);
  });

  it('reports every request-shape error of batches with its modelled exception', async () => {
    const url = await createQueue('sdk-batch-errors');
    await expectSqsError(
      fixture.sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [] })),
      'EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
    );
    const eleven = Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' }));
    await expectSqsError(
      fixture.sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: eleven })),
      'TooManyEntriesInBatchRequest',
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    );
    await expectSqsError(
      fixture.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: [
            { Id: 'same', MessageBody: 'x' },
            { Id: 'same', MessageBody: 'y' },
          ],
        }),
      ),
      'BatchEntryIdsNotDistinct',
      'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    );
    await expectSqsError(
      fixture.sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'no spaces', ReceiptHandle: 'x' }] }),
      ),
      'InvalidBatchEntryId',
      'AWS.SimpleQueueService.InvalidBatchEntryId',
    );
    const big = new Uint8Array(400_000);
    const heavy = Array.from({ length: 3 }, (_, i) => ({
      Id: `h${i}`,
      MessageBody: 'small',
      MessageAttributes: { blob: { DataType: 'Binary', BinaryValue: big } },
    }));
    await expectSqsError(
      fixture.sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: heavy })),
      'BatchRequestTooLong',
      'AWS.SimpleQueueService.BatchRequestTooLong',
    );
  });

  it('reports message-level errors with their modelled exceptions', async () => {
    const url = await createQueue('sdk-message-errors');
    await expectSqsError(
      fixture.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'bell \u0007' })),
      'InvalidMessageContents',
      'InvalidMessageContents',
    );
    await expectSqsError(
      fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 11 })),
      'InvalidParameterValue',
      'InvalidParameterValue',
    );
    await expectSqsError(
      fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 21 })),
      'InvalidParameterValue',
      'InvalidParameterValue',
    );
    await expectSqsError(
      fixture.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'garbage' })),
      'ReceiptHandleIsInvalid',
      'ReceiptHandleIsInvalid',
    );
    await expectSqsError(
      fixture.sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'x',
          MessageAttributes: { 'AWS.reserved': { DataType: 'String', StringValue: 'v' } },
        }),
      ),
      'InvalidParameterValue',
      'InvalidParameterValue',
    );
  });

  it('ends a long poll as soon as a message arrives', async () => {
    const url = await createQueue('sdk-long-poll');
    const waitTimeSeconds = 20;
    const startedMs = Date.now();
    const polling = fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: waitTimeSeconds }));
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'wake up' }));
    const { Messages } = await polling;
    expect(Messages?.[0]?.Body).toBe('wake up');
    // A poll the message did not wake answers when its wait is over, not before: however slow the
    // machine, ending earlier than that means the arrival ended it.
    expect(Date.now() - startedMs).toBeLessThan(waitTimeSeconds * 1000);
  });

  it('purges once per 60 seconds', async () => {
    const url = await createQueue('sdk-purge');
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'gone soon' }));
    await fixture.sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
    expect((await fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages).toBeUndefined();
    await expectSqsError(
      fixture.sqs.send(new PurgeQueueCommand({ QueueUrl: url })),
      'PurgeQueueInProgress',
      'AWS.SimpleQueueService.PurgeQueueInProgress',
    );
  });

  it('lists the dead-letter sources of a queue', async () => {
    const dlqUrl = await createQueue('sdk-dlq');
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const sourceUrl = await createQueue('sdk-dlq-source', {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.['QueueArn'], maxReceiveCount: 2 }),
    });
    const sources = await fixture.sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlqUrl }));
    expect(sources.queueUrls).toEqual([sourceUrl]);
  });
});

describe('message move tasks through the SDK', () => {
  // In process, so the test drives the move-task steps the leader's background tick would run.
  it('redrives a poison message to its dead-letter queue, moves it back, and lists and cancels tasks', async () => {
    const node = await startInProcessGateway();
    const client = new SQSClient({
      endpoint: node.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      maxAttempts: 1,
    });
    try {
      const dlqUrl = (await client.send(new CreateQueueCommand({ QueueName: 'move-dlq' }))).QueueUrl as string;
      const dlqArn = (
        await client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))
      ).Attributes?.['QueueArn'] as string;
      const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 });
      const sourceUrl = (
        await client.send(
          new CreateQueueCommand({ QueueName: 'move-source', Attributes: { RedrivePolicy: redrivePolicy } }),
        )
      ).QueueUrl as string;
      await client.send(new SendMessageCommand({ QueueUrl: sourceUrl, MessageBody: 'poison' }));
      expect(
        (await client.send(new ReceiveMessageCommand({ QueueUrl: sourceUrl, VisibilityTimeout: 0 }))).Messages?.[0]
          ?.Body,
      ).toBe('poison');
      // The second receive would exceed maxReceiveCount: the message moves to the DLQ instead.
      expect((await client.send(new ReceiveMessageCommand({ QueueUrl: sourceUrl }))).Messages).toBeUndefined();
      const inDlq = await client.send(
        new ReceiveMessageCommand({ QueueUrl: dlqUrl, VisibilityTimeout: 0, MessageSystemAttributeNames: ['All'] }),
      );
      expect(inDlq.Messages?.[0]?.Body).toBe('poison');
      expect(inDlq.Messages?.[0]?.Attributes?.['DeadLetterQueueSourceArn']).toBe(
        'arn:aws:sqs:us-east-1:000000000000:move-source',
      );

      const { TaskHandle } = await client.send(
        new StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 10 }),
      );
      expect(TaskHandle).toBeTruthy();
      const listed = await client.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 10 }));
      expect(listed.Results?.[0]).toMatchObject({
        SourceArn: dlqArn,
        Status: 'RUNNING',
        TaskHandle,
        MaxNumberOfMessagesPerSecond: 10,
      });
      const cancelled = await client.send(new CancelMessageMoveTaskCommand({ TaskHandle }));
      expect(cancelled.ApproximateNumberOfMessagesMoved).toBe(0);

      await client.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn }));
      for (let i = 0; i < 20 && (await node.service.stepMoveTasks()) === 0; i++);
      const moved = await client.send(new ReceiveMessageCommand({ QueueUrl: sourceUrl, WaitTimeSeconds: 1 }));
      expect(moved.Messages?.[0]?.Body).toBe('poison');
    } finally {
      client.destroy();
      await node.close();
    }
  });
});
