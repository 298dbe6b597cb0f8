import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsClientEnv, botocoreDataPath, hasDebianPython, pythonPath, runProcess } from '../clients/python-clients.js';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';

/**
 * The query protocol checked against the JSON protocol: Debian's boto3 sends the same requests
 * over both (test/compat/python), and every parsed answer must match. The three move-task actions
 * are newer than Debian's query model, so their XML element names are checked on raw form POSTs
 * against the names AWS's query SDKs read (`ListMessageMoveTasksResultEntry`, `QueueUrl`).
 */

let endpoint: SqsEndpoint;

beforeAll(async () => {
  endpoint = await startSqsEndpoint();
});

afterAll(async () => {
  await endpoint?.close();
});

async function query(params: Record<string, string>): Promise<{ status: number; body: string }> {
  const res = await fetch(`${endpoint.endpoint}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.text() };
}

describe('query protocol against JSON protocol', () => {
  it.skipIf(!hasDebianPython())(
    'gives boto3 the same parsed answer over query and JSON for every action both models share',
    async () => {
      const env = awsClientEnv({ RAFTQ_SQS_ENDPOINT: endpoint.endpoint, RAFTQ_BOTOCORE_DATA: botocoreDataPath });
      const result = await runProcess(
        pythonPath,
        ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test/compat/python/test_query_json_differential.py'],
        { env },
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/1 passed/);
    },
  );

  it('names each ListMessageMoveTasks result <ListMessageMoveTasksResultEntry> and each dead-letter source <QueueUrl>', async () => {
    const source = /<QueueUrl>([^<]+)<\/QueueUrl>/.exec(
      (await query({ Action: 'CreateQueue', QueueName: 'compat-xml-source' })).body,
    )?.[1] as string;
    const dlq = /<QueueUrl>([^<]+)<\/QueueUrl>/.exec(
      (await query({ Action: 'CreateQueue', QueueName: 'compat-xml-dlq' })).body,
    )?.[1] as string;
    const dlqArn = /<Value>([^<]+)<\/Value>/.exec(
      (await query({ Action: 'GetQueueAttributes', QueueUrl: dlq, 'AttributeName.1': 'QueueArn' })).body,
    )?.[1] as string;
    const redrive = JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 });
    expect(
      (
        await query({
          Action: 'SetQueueAttributes',
          QueueUrl: source,
          'Attribute.1.Name': 'RedrivePolicy',
          'Attribute.1.Value': redrive,
        })
      ).status,
    ).toBe(200);
    const sources = await query({ Action: 'ListDeadLetterSourceQueues', QueueUrl: dlq });
    expect(sources.body).toContain(
      `<ListDeadLetterSourceQueuesResult><QueueUrl>${source}</QueueUrl></ListDeadLetterSourceQueuesResult>`,
    );
    const started = await query({
      Action: 'StartMessageMoveTask',
      SourceArn: dlqArn,
      MaxNumberOfMessagesPerSecond: '5',
    });
    expect(started.status, started.body).toBe(200);
    expect(started.body).toMatch(
      /<StartMessageMoveTaskResult><TaskHandle>[^<]+<\/TaskHandle><\/StartMessageMoveTaskResult>/,
    );
    const listed = await query({ Action: 'ListMessageMoveTasks', SourceArn: dlqArn, MaxResults: '10' });
    expect(listed.body).toMatch(
      /<ListMessageMoveTasksResult><ListMessageMoveTasksResultEntry>.*<SourceArn>[^<]+<\/SourceArn>.*<\/ListMessageMoveTasksResultEntry><\/ListMessageMoveTasksResult>/,
    );
    expect(listed.body).not.toContain('<Results>');
  });
});
