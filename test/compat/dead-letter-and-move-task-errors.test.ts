import {
  CancelMessageMoveTaskCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkFixture, type SdkFixture } from '../sqs/support/sdk-fixture.js';

/**
 * The refusals of the dead-letter queue actions (StartMessageMoveTask, ListMessageMoveTasks,
 * CancelMessageMoveTask, ListDeadLetterSourceQueues), of RedriveAllowPolicy and of FIFO sends, as
 * the SDK reports them from a real node: the error name, the query-compatible code and the HTTP
 * status. A refused request changes nothing.
 */

let fixture: SdkFixture;

/** A message move task's tick on the leader is one second; a task finishes within a few ticks. */
const taskSettleBoundMs = 15_000;

beforeAll(async () => {
  fixture = await startSdkFixture({ maxAttempts: 1 });
});

afterAll(async () => {
  await fixture?.close();
});

interface ReportedError {
  readonly name: string;
  readonly message: string;
  readonly Code?: string;
  readonly status?: number;
}

/** What the SDK reports when `request` fails; undefined when it succeeds. */
async function errorOf(request: Promise<unknown>): Promise<ReportedError | undefined> {
  return request.then(
    () => undefined,
    (err: Error & { Code?: string; $metadata?: { httpStatusCode?: number } }) => ({
      name: err.name,
      message: err.message,
      ...(err.Code !== undefined ? { Code: err.Code } : {}),
      ...(err.$metadata?.httpStatusCode !== undefined ? { status: err.$metadata.httpStatusCode } : {}),
    }),
  );
}

async function createQueue(
  name: string,
  attributes: Record<string, string> = {},
): Promise<{ url: string; arn: string }> {
  const url = (await fixture.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes })))
    .QueueUrl as string;
  const { Attributes } = await fixture.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.['QueueArn'] as string };
}

/** A dead-letter queue and one source queue whose RedrivePolicy names it. */
async function createDeadLetterPair(
  prefix: string,
): Promise<{ dlq: { url: string; arn: string }; source: { url: string; arn: string } }> {
  const dlq = await createQueue(`${prefix}-dlq`);
  const source = await createQueue(`${prefix}-source`, {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 3 }),
  });
  return { dlq, source };
}

async function sendMessages(queueUrl: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 10) {
    const entries = Array.from({ length: Math.min(10, count - first) }, (_, i) => ({
      Id: `m${first + i}`,
      MessageBody: `body ${first + i}`,
    }));
    const { Failed } = await fixture.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    expect(Failed ?? []).toEqual([]);
  }
}

/** Polls ListMessageMoveTasks (bounded) until the most recent task on `sourceArn` is not RUNNING. */
async function settledTaskStatus(sourceArn: string): Promise<string | undefined> {
  const deadlineMs = Date.now() + taskSettleBoundMs;
  for (;;) {
    const { Results } = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: sourceArn }));
    const status = Results?.[0]?.Status;
    if (status !== 'RUNNING' || Date.now() > deadlineMs) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('StartMessageMoveTask refusals', () => {
  it("refuses a source that is not any queue's dead-letter queue with UnsupportedOperation", async () => {
    const plain = await createQueue('compat-move-plain');
    const err = await errorOf(fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: plain.arn })));
    expect(err).toMatchObject({ name: 'UnsupportedOperation', status: 400 });
    const { Results } = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: plain.arn }));
    expect(Results ?? []).toEqual([]);
  });

  it('refuses a second task on a source while one is running with UnsupportedOperation', async () => {
    const { dlq, source } = await createDeadLetterPair('compat-move-busy');
    // One message a second over thirty messages keeps the first task running for the whole test.
    // The messages were sent to the dead-letter queue directly, so they name no source to return
    // to: the task is given its destination, or its first step would fail it at once.
    await sendMessages(dlq.url, 30);
    const first = await fixture.sqs.send(
      new StartMessageMoveTaskCommand({
        SourceArn: dlq.arn,
        DestinationArn: source.arn,
        MaxNumberOfMessagesPerSecond: 1,
      }),
    );
    expect(first.TaskHandle).toEqual(expect.any(String));
    const err = await errorOf(fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn })));
    expect(err).toMatchObject({ name: 'UnsupportedOperation', status: 400 });
    const { Results } = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlq.arn, MaxResults: 10 }));
    expect(Results?.map((task) => task.Status)).toEqual(['RUNNING']);
    await fixture.sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle: first.TaskHandle }));
  });

  it('answers an unknown source ARN with ResourceNotFoundException, HTTP 404', async () => {
    const { arn } = await createQueue('compat-move-arn-template');
    const unknownArn = arn.replace(/compat-move-arn-template$/, 'compat-move-no-such-queue');
    expect(unknownArn).not.toBe(arn);
    const err = await errorOf(fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: unknownArn })));
    expect(err).toMatchObject({ name: 'ResourceNotFoundException', status: 404 });
  });

  it.each([0, 501])(
    'refuses MaxNumberOfMessagesPerSecond %i with InvalidParameterValue and starts nothing',
    async (rate) => {
      const { dlq } = await createDeadLetterPair(`compat-move-rate-refused-${rate}`);
      const err = await errorOf(
        fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, MaxNumberOfMessagesPerSecond: rate })),
      );
      expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
      const { Results } = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlq.arn }));
      expect(Results ?? []).toEqual([]);
    },
  );

  it.each([1, 500])('accepts MaxNumberOfMessagesPerSecond %i and records it on the task', async (rate) => {
    const { dlq } = await createDeadLetterPair(`compat-move-rate-accepted-${rate}`);
    const started = await fixture.sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, MaxNumberOfMessagesPerSecond: rate }),
    );
    expect(started.TaskHandle).toEqual(expect.any(String));
    const { Results } = await fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlq.arn }));
    expect(Results?.[0]?.MaxNumberOfMessagesPerSecond).toBe(rate);
  });
});

describe('ListMessageMoveTasks MaxResults', () => {
  let dlqArn: string;

  beforeAll(async () => {
    dlqArn = (await createDeadLetterPair('compat-list-tasks')).dlq.arn;
  });

  it.each([0, 11])('refuses MaxResults %i with InvalidParameterValue', async (maxResults) => {
    const err = await errorOf(
      fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: maxResults })),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
  });

  it.each([1, 10])('accepts MaxResults %i', async (maxResults) => {
    expect(
      await errorOf(fixture.sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: maxResults }))),
    ).toBeUndefined();
  });
});

describe('CancelMessageMoveTask refusals', () => {
  it('refuses to cancel a COMPLETED task with UnsupportedOperation', async () => {
    const { dlq } = await createDeadLetterPair('compat-cancel-completed');
    // An empty dead-letter queue has nothing to move: the task completes at its first step.
    const { TaskHandle } = await fixture.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlq.arn }));
    expect(await settledTaskStatus(dlq.arn)).toBe('COMPLETED');
    const err = await errorOf(fixture.sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
    expect(err).toMatchObject({ name: 'UnsupportedOperation', status: 400 });
    expect(await settledTaskStatus(dlq.arn)).toBe('COMPLETED');
  });

  it('refuses to cancel a CANCELLED task with UnsupportedOperation', async () => {
    const { dlq } = await createDeadLetterPair('compat-cancel-cancelled');
    await sendMessages(dlq.url, 30);
    const { TaskHandle } = await fixture.sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: dlq.arn, MaxNumberOfMessagesPerSecond: 1 }),
    );
    expect(await errorOf(fixture.sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })))).toBeUndefined();
    const err = await errorOf(fixture.sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
    expect(err).toMatchObject({ name: 'UnsupportedOperation', status: 400 });
    expect(await settledTaskStatus(dlq.arn)).toBe('CANCELLED');
  });

  it('answers a task handle it never issued with ResourceNotFoundException, HTTP 404', async () => {
    const err = await errorOf(
      fixture.sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle: 'no-such-task-handle' })),
    );
    expect(err).toMatchObject({ name: 'ResourceNotFoundException', status: 404 });
  });
});

describe('ListDeadLetterSourceQueues paging', () => {
  const sourceCount = 5;
  let dlqUrl: string;
  let sourceUrls: string[];

  beforeAll(async () => {
    const dlq = await createQueue('compat-dlsq-dlq');
    dlqUrl = dlq.url;
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 5 });
    sourceUrls = [];
    for (let i = 0; i < sourceCount; i++)
      sourceUrls.push((await createQueue(`compat-dlsq-source-${i}`, { RedrivePolicy: redrivePolicy })).url);
  });

  it.each([0, 1001])('refuses MaxResults %i with InvalidParameterValue', async (maxResults) => {
    const err = await errorOf(
      fixture.sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlqUrl, MaxResults: maxResults })),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
  });

  it('returns every source queue exactly once when paged with NextToken', async () => {
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await fixture.sqs.send(
        new ListDeadLetterSourceQueuesCommand({
          QueueUrl: dlqUrl,
          MaxResults: 2,
          ...(nextToken !== undefined ? { NextToken: nextToken } : {}),
        }),
      );
      expect(page.queueUrls?.length ?? 0).toBeLessThanOrEqual(2);
      seen.push(...(page.queueUrls ?? []));
      nextToken = page.NextToken;
      pages++;
    } while (nextToken !== undefined && pages <= sourceCount);
    expect(pages).toBe(Math.ceil(sourceCount / 2));
    expect([...seen].sort()).toEqual([...sourceUrls].sort());
  });

  it('refuses a NextToken it never issued with InvalidParameterValue', async () => {
    const err = await errorOf(
      fixture.sqs.send(
        new ListDeadLetterSourceQueuesCommand({
          QueueUrl: dlqUrl,
          MaxResults: 2,
          NextToken: 'a token from somewhere else!',
        }),
      ),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
  });
});

describe('RedriveAllowPolicy validation', () => {
  const oldPolicy = JSON.stringify({ redrivePermission: 'denyAll' });
  let queueUrl: string;

  beforeAll(async () => {
    queueUrl = (await createQueue('compat-redrive-allow', { RedriveAllowPolicy: oldPolicy })).url;
  });

  async function currentPolicy(): Promise<string | undefined> {
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedriveAllowPolicy'] }),
    );
    return Attributes?.['RedriveAllowPolicy'];
  }

  const elevenArns = Array.from({ length: 11 }, (_, i) => `arn:aws:sqs:us-east-1:000000000000:compat-allowed-${i}`);
  const refused: Array<[string, string]> = [
    ['malformed JSON', '{"redrivePermission": "byQueue"'],
    ['an unknown redrivePermission', JSON.stringify({ redrivePermission: 'allowSome' })],
    ['byQueue without sourceQueueArns', JSON.stringify({ redrivePermission: 'byQueue' })],
    ['more than 10 sourceQueueArns', JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: elevenArns })],
    [
      'sourceQueueArns with allowAll',
      JSON.stringify({ redrivePermission: 'allowAll', sourceQueueArns: elevenArns.slice(0, 1) }),
    ],
  ];

  it.each(refused)('refuses %s with InvalidAttributeValue and keeps the old policy', async (_case, policy) => {
    expect(await currentPolicy()).toBe(oldPolicy);
    const err = await errorOf(
      fixture.sqs.send(
        new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { RedriveAllowPolicy: policy } }),
      ),
    );
    expect(err).toMatchObject({ name: 'InvalidAttributeValue', Code: 'InvalidAttributeValue', status: 400 });
    expect(await currentPolicy()).toBe(oldPolicy);
  });
});

describe('FIFO send and receive', () => {
  let fifoUrl: string;

  beforeAll(async () => {
    fifoUrl = (await createQueue('compat-fifo-checks.fifo', { FifoQueue: 'true' })).url;
  });

  it("refuses a message without MessageGroupId with MissingParameter and AWS's message", async () => {
    const err = await errorOf(
      fixture.sqs.send(
        new SendMessageCommand({ QueueUrl: fifoUrl, MessageBody: 'no group', MessageDeduplicationId: 'd-no-group' }),
      ),
    );
    expect(err).toMatchObject({
      name: 'MissingParameter',
      Code: 'MissingParameter',
      status: 400,
      message: 'The request must contain the parameter MessageGroupId.',
    });
  });

  it('refuses a message without a deduplication id on a queue without content-based deduplication with InvalidParameterValue', async () => {
    const err = await errorOf(
      fixture.sqs.send(new SendMessageCommand({ QueueUrl: fifoUrl, MessageBody: 'no dedup', MessageGroupId: 'g' })),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
  });

  it('refuses a 129-character MessageGroupId and accepts a 128-character one', async () => {
    const err = await errorOf(
      fixture.sqs.send(
        new SendMessageCommand({
          QueueUrl: fifoUrl,
          MessageBody: 'long group',
          MessageGroupId: 'g'.repeat(129),
          MessageDeduplicationId: 'd-129',
        }),
      ),
    );
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
    const sent = fixture.sqs.send(
      new SendMessageCommand({
        QueueUrl: fifoUrl,
        MessageBody: 'long group',
        MessageGroupId: 'g'.repeat(128),
        MessageDeduplicationId: 'd-128',
      }),
    );
    expect(await errorOf(sent)).toBeUndefined();
  });

  it('gives a received message its MessageGroupId, a 20-digit SequenceNumber and its MessageDeduplicationId when asked for All', async () => {
    const fifo = await createQueue('compat-fifo-attributes.fifo', { FifoQueue: 'true' });
    const sent = await fixture.sqs.send(
      new SendMessageCommand({
        QueueUrl: fifo.url,
        MessageBody: 'ordered',
        MessageGroupId: 'group-a',
        MessageDeduplicationId: 'dedup-a',
      }),
    );
    const { Messages } = await fixture.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: fifo.url, MessageSystemAttributeNames: ['All'], WaitTimeSeconds: 1 }),
    );
    expect(Messages).toHaveLength(1);
    const attributes = Messages?.[0]?.Attributes ?? {};
    expect(attributes['MessageGroupId']).toBe('group-a');
    expect(attributes['MessageDeduplicationId']).toBe('dedup-a');
    expect(attributes['SequenceNumber']).toMatch(/^\d{20}$/);
    expect(attributes['SequenceNumber']).toBe(sent.SequenceNumber);
  });
});
