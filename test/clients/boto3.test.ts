import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';
import { awsClientEnv, botocoreDataPath, pythonPath, runProcess } from './python-clients.js';

/**
 * Debian's boto3, unmodified, over both protocols: its own (older) botocore model speaks the query
 * protocol; the current model in shared/ (AWS_DATA_PATH) makes the same boto3 speak JSON.
 */

let gateway: SqsEndpoint;

beforeAll(async () => {
  gateway = await startSqsEndpoint();
});

afterAll(async () => {
  await gateway?.close();
});

async function runPytest(protocol: 'query' | 'json'): Promise<void> {
  const env = awsClientEnv({
    RAFTQ_SQS_ENDPOINT: gateway.endpoint,
    RAFTQ_EXPECT_PROTOCOL: protocol,
    ...(protocol === 'json' ? { AWS_DATA_PATH: botocoreDataPath } : {}),
  });
  const result = await runProcess(pythonPath, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test/clients/python/test_boto3_sqs.py'], { env });
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(/\d+ passed/);
}

describe('boto3 from Debian', () => {
  it('passes its SQS suite over the query protocol', async () => {
    await runPytest('query');
  });

  it('passes its SQS suite over the JSON protocol', async () => {
    await runPytest('json');
  });
});
