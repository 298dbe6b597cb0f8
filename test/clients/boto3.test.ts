import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { startSqsEndpoint, type SqsEndpoint } from '../sqs/support/sqs-endpoint.js';
import { awsClientEnv, botocoreDataPath, pythonPath, runProcess } from './python-clients.js';

/**
 * Debian's boto3, unmodified, over both protocols: its own (older) botocore model speaks the query
 * protocol; the repository's current model (model/botocore as AWS_DATA_PATH) makes the same boto3 speak JSON.
 */

let gateway: SqsEndpoint;
let signedGateway: SqsEndpoint;
const credentialsDir = makeTempDir('boto3-creds');
const signingKey = { accessKeyId: 'AKIDBOTO3SIGNED', secretAccessKey: 'boto3/secret+with=odd chars' };

beforeAll(async () => {
  gateway = await startSqsEndpoint();
  const credentialsFile = join(credentialsDir.path, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify({ credentials: [signingKey] }));
  signedGateway = await startSqsEndpoint({ credentialsFile });
});

afterAll(async () => {
  await gateway?.close();
  await signedGateway?.close();
  credentialsDir.cleanup();
});

async function runPytest(
  protocol: 'query' | 'json',
  suite = 'test_boto3_sqs.py',
  endpoint = gateway.endpoint,
  extraEnv: Record<string, string> = {},
): Promise<void> {
  const env = awsClientEnv({
    RAFTQ_SQS_ENDPOINT: endpoint,
    RAFTQ_EXPECT_PROTOCOL: protocol,
    ...(protocol === 'json' ? { AWS_DATA_PATH: botocoreDataPath } : {}),
    ...extraEnv,
  });
  const result = await runProcess(
    pythonPath,
    ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `test/clients/python/${suite}`],
    { env },
  );
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

  it.each(['query', 'json'] as const)(
    'signs %s requests that a node with a credentials file verifies',
    async (protocol) => {
      await runPytest(protocol, 'test_boto3_sigv4.py', signedGateway.endpoint, {
        AWS_ACCESS_KEY_ID: signingKey.accessKeyId,
        AWS_SECRET_ACCESS_KEY: signingKey.secretAccessKey,
      });
    },
  );
});
