import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';
import { awsClientEnv, awsCliPath, runProcess } from './python-clients.js';

/** The AWS CLI from Debian (query protocol), unmodified, as an operator would type it. */

let gateway: SqsEndpoint;

beforeAll(async () => {
  gateway = await startSqsEndpoint();
});

afterAll(async () => {
  await gateway?.close();
});

async function aws(...args: string[]): Promise<Record<string, unknown>> {
  const result = await runProcess(
    awsCliPath,
    ['--endpoint-url', gateway.endpoint, '--output', 'json', 'sqs', ...args],
    { env: awsClientEnv() },
  );
  if (result.code !== 0) throw new Error(`aws sqs ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout.trim() === '' ? {} : (JSON.parse(result.stdout) as Record<string, unknown>);
}

async function awsFailure(...args: string[]): Promise<string> {
  const result = await runProcess(awsCliPath, ['--endpoint-url', gateway.endpoint, 'sqs', ...args], {
    env: awsClientEnv(),
  });
  expect(result.code).not.toBe(0);
  return result.stderr;
}

describe('the AWS CLI from Debian', () => {
  it('creates a queue, sends, receives and deletes a message, and deletes the queue', async () => {
    const { QueueUrl } = (await aws(
      'create-queue',
      '--queue-name',
      'cli-queue',
      '--attributes',
      'VisibilityTimeout=15',
    )) as { QueueUrl: string };
    expect(QueueUrl).toBe(`${gateway.endpoint}/000000000000/cli-queue`);
    expect(await aws('list-queues', '--queue-name-prefix', 'cli-')).toEqual({ QueueUrls: [QueueUrl] });
    const sent = await aws(
      'send-message',
      '--queue-url',
      QueueUrl,
      '--message-body',
      'from the cli',
      '--message-attributes',
      '{"kind":{"DataType":"String","StringValue":"cli"}}',
    );
    expect(sent['MD5OfMessageBody']).toBe(createHash('md5').update('from the cli').digest('hex'));
    const received = (await aws(
      'receive-message',
      '--queue-url',
      QueueUrl,
      '--message-attribute-names',
      'All',
      '--attribute-names',
      'All',
      '--wait-time-seconds',
      '1',
    )) as {
      Messages: Array<{
        Body: string;
        ReceiptHandle: string;
        MessageAttributes: Record<string, unknown>;
        Attributes: Record<string, string>;
      }>;
    };
    expect(received.Messages[0]?.Body).toBe('from the cli');
    expect(received.Messages[0]?.MessageAttributes).toEqual({ kind: { DataType: 'String', StringValue: 'cli' } });
    expect(received.Messages[0]?.Attributes['ApproximateReceiveCount']).toBe('1');
    await aws('delete-message', '--queue-url', QueueUrl, '--receipt-handle', received.Messages[0]?.ReceiptHandle ?? '');
    const attributes = (await aws('get-queue-attributes', '--queue-url', QueueUrl, '--attribute-names', 'All')) as {
      Attributes: Record<string, string>;
    };
    expect(attributes.Attributes).toMatchObject({ VisibilityTimeout: '15', ApproximateNumberOfMessages: '0' });
    await aws('delete-queue', '--queue-url', QueueUrl);
    expect(await awsFailure('get-queue-url', '--queue-name', 'cli-queue')).toContain(
      'AWS.SimpleQueueService.NonExistentQueue',
    );
  });

  it('sends a batch and reports a malformed one with its AWS error code', async () => {
    const { QueueUrl } = (await aws('create-queue', '--queue-name', 'cli-batch')) as { QueueUrl: string };
    const batch = (await aws(
      'send-message-batch',
      '--queue-url',
      QueueUrl,
      '--entries',
      'Id=a,MessageBody=one',
      'Id=b,MessageBody=two',
    )) as { Successful: Array<{ Id: string }> };
    expect(batch.Successful.map((e) => e.Id)).toEqual(['a', 'b']);
    expect(
      await awsFailure(
        'send-message-batch',
        '--queue-url',
        QueueUrl,
        '--entries',
        'Id=a,MessageBody=one',
        'Id=a,MessageBody=two',
      ),
    ).toContain('AWS.SimpleQueueService.BatchEntryIdsNotDistinct');
    await aws('purge-queue', '--queue-url', QueueUrl);
    expect(await aws('receive-message', '--queue-url', QueueUrl)).toEqual({});
  });
});
