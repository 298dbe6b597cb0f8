import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';
import { awsClientEnv, botocoreDataPath, pythonPath, runProcess } from './python-clients.js';

/**
 * Debian's boto3, unmodified, over both protocols against a real node: FIFO order per group under
 * 8 consumer threads over 50 groups with redeliveries, dead-letter redrive after maxReceiveCount,
 * and (JSON only: Debian's own model predates the actions) a move task back to the source.
 */

let gateway: SqsEndpoint;

beforeAll(async () => {
  gateway = await startSqsEndpoint();
});

afterAll(async () => {
  await gateway?.close();
});

async function runSuite(protocol: 'query' | 'json'): Promise<string> {
  const env = awsClientEnv({
    RAFTQ_SQS_ENDPOINT: gateway.endpoint,
    RAFTQ_EXPECT_PROTOCOL: protocol,
    ...(protocol === 'json' ? { AWS_DATA_PATH: botocoreDataPath } : {}),
  });
  const result = await runProcess(
    pythonPath,
    ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', 'test/clients/python/test_boto3_fifo.py'],
    { env, timeoutMs: 150_000 },
  );
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

describe('boto3 FIFO, dead letters and move tasks', () => {
  it('passes over the query protocol (move tasks skipped: not in that model)', async () => {
    const stdout = await runSuite('query');
    expect(stdout).toMatch(/2 passed, 1 skipped/);
  }, 160_000);

  it('passes over the JSON protocol, move tasks included', async () => {
    const stdout = await runSuite('json');
    expect(stdout).toMatch(/3 passed/);
  }, 160_000);
});
