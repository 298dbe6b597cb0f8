import { AddPermissionCommand, CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';

/**
 * AddPermission's request rules as AWS documents them: a Label of at most 80 alphanumeric
 * characters, hyphens and underscores, and action names that are SQS actions or `*`. A refused
 * request changes nothing.
 */

let endpoint: SqsEndpoint;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  endpoint = await startSqsEndpoint();
  sqs = new SQSClient({
    endpoint: endpoint.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDCOMPAT', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'compat-permissions' }))).QueueUrl as string;
});

afterAll(async () => {
  sqs?.destroy();
  await endpoint?.close();
});

async function addPermissionError(
  label: string,
  actions: string[],
): Promise<{ name: string; Code?: string; status?: number; message: string } | undefined> {
  return sqs
    .send(
      new AddPermissionCommand({ QueueUrl: queueUrl, Label: label, AWSAccountIds: ['111122223333'], Actions: actions }),
    )
    .then(
      () => undefined,
      (err: Error & { Code?: string; $metadata?: { httpStatusCode?: number } }) => ({
        name: err.name,
        message: err.message,
        ...(err.Code !== undefined ? { Code: err.Code } : {}),
        ...(err.$metadata?.httpStatusCode !== undefined ? { status: err.$metadata.httpStatusCode } : {}),
      }),
    );
}

async function policyStatementIds(): Promise<string[]> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['Policy'] }),
  );
  const policy = Attributes?.['Policy'];
  if (policy === undefined) return [];
  return (JSON.parse(policy) as { Statement: Array<{ Sid: string }> }).Statement.map((s) => s.Sid);
}

describe('AddPermission request validation', () => {
  it('accepts an 80-character label of letters, digits, hyphens and underscores, and the action *', async () => {
    const label = `A_b-${'9'.repeat(76)}`;
    expect(label).toHaveLength(80);
    expect(await addPermissionError(label, ['*'])).toBeUndefined();
    expect(await policyStatementIds()).toContain(label);
  });

  it('refuses a label with characters outside the allowed set with InvalidParameterValue', async () => {
    const err = await addPermissionError('bad label!', ['SendMessage']);
    expect(err).toMatchObject({ name: 'InvalidParameterValue', Code: 'InvalidParameterValue', status: 400 });
    expect(await policyStatementIds()).not.toContain('bad label!');
  });

  it('refuses a label of 81 characters with InvalidParameterValue', async () => {
    const err = await addPermissionError('L'.repeat(81), ['SendMessage']);
    expect(err).toMatchObject({ name: 'InvalidParameterValue', status: 400 });
  });

  it('refuses an action name that is not an SQS action with InvalidParameterValue and stores nothing', async () => {
    const err = await addPermissionError('bogus-action', ['SendMessage', 'Bogus']);
    expect(err).toMatchObject({ name: 'InvalidParameterValue', status: 400 });
    expect(err?.message).toContain('Bogus');
    expect(await policyStatementIds()).not.toContain('bogus-action');
  });

  it('accepts the action names AWS lists for AddPermission', async () => {
    const actions = [
      'SendMessage',
      'ReceiveMessage',
      'DeleteMessage',
      'ChangeMessageVisibility',
      'GetQueueAttributes',
      'GetQueueUrl',
    ];
    expect(await addPermissionError('listed-actions', actions)).toBeUndefined();
    expect(await policyStatementIds()).toContain('listed-actions');
  });
});
