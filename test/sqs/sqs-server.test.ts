import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { CreateQueueCommand, ListQueuesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { startInProcessGateway, type InProcessGateway } from './support/in-process-gateway.js';
import { recordingLogger } from './support/gateway-harness.js';
import { makeTempDir } from '../support/temp-dir.js';

/** The node:http layer: body limits before buffering, keep-alive, auth at start, draining close. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayFor(options: Parameters<typeof startInProcessGateway>[0] = {}): Promise<InProcessGateway> {
  const gateway = await startInProcessGateway(options);
  cleanups.push(() => gateway.close());
  return gateway;
}

function client(endpoint: string, credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }): SQSClient {
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  cleanups.push(() => sqs.destroy());
  return sqs;
}

describe('the SQS server', () => {
  it('refuses a body over the limit by its Content-Length, before reading it', async () => {
    const gateway = await gatewayFor();
    const tooBig = raftqLimits.httpRequestBytesMax.value + 1;
    const res = await request(`${gateway.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(tooBig) },
      body: Buffer.alloc(tooBig, 'a'),
    });
    // The answer arrives whole although the client was still writing: the server reads and throws
    // away the rest of the body before it closes, instead of resetting the connection.
    expect(res.statusCode).toBe(413);
    expect(await res.body.text()).toContain('<Code>RequestEntityTooLarge</Code>');
  });

  it('refuses a streamed body once it passes the limit', async () => {
    const gateway = await gatewayFor();
    const chunk = Buffer.alloc(256 * 1024, 'a');
    async function* chunks() {
      for (let sent = 0; sent <= raftqLimits.httpRequestBytesMax.value; sent += chunk.byteLength) yield chunk;
    }
    const res = await request(`${gateway.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'AmazonSQS.ListQueues' },
      body: Readable.from(chunks()),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['x-amzn-query-error']).toBe('RequestEntityTooLarge;Sender');
  });

  it('serves many requests over one kept-alive connection', async () => {
    const gateway = await gatewayFor();
    const sqs = client(gateway.endpoint);
    await sqs.send(new CreateQueueCommand({ QueueName: 'keepalive' }));
    const results = await Promise.all(Array.from({ length: 50 }, () => sqs.send(new ListQueuesCommand({}))));
    expect(results.every((r) => r.QueueUrls?.length === 1)).toBe(true);
  });

  it('logs once at start that it accepts any caller when it has no credentials file', async () => {
    const logger = recordingLogger();
    await gatewayFor({ logger });
    expect(logger.lines.filter((l) => l.message.includes('accepts any caller'))).toHaveLength(1);
  });

  it('verifies SigV4 when given a credentials file', async () => {
    const dir = makeTempDir('sqs-creds');
    cleanups.push(dir.cleanup);
    const file = join(dir.path, 'credentials.json');
    writeFileSync(file, JSON.stringify({ credentials: [{ accessKeyId: 'AKIDGOOD', secretAccessKey: 'good-secret' }] }));
    const gateway = await gatewayFor({ credentialsFile: file });
    const good = client(gateway.endpoint, { accessKeyId: 'AKIDGOOD', secretAccessKey: 'good-secret' });
    expect((await good.send(new CreateQueueCommand({ QueueName: 'signed' }))).QueueUrl).toContain('/signed');
    const wrongSecret = client(gateway.endpoint, { accessKeyId: 'AKIDGOOD', secretAccessKey: 'bad-secret' });
    await expect(wrongSecret.send(new ListQueuesCommand({}))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    const unknownKey = client(gateway.endpoint, { accessKeyId: 'AKIDWHO', secretAccessKey: 'good-secret' });
    await expect(unknownKey.send(new ListQueuesCommand({}))).rejects.toMatchObject({ name: 'InvalidClientTokenId' });
    const unsigned = await request(`${gateway.endpoint}/?Action=ListQueues`);
    expect(unsigned.statusCode).toBe(403);
    expect(await unsigned.body.text()).toContain('<Code>MissingAuthenticationToken</Code>');
  });

  it('ends a long poll whose client went away, releasing its waiter', async () => {
    const gateway = await gatewayFor();
    const sqs = client(gateway.endpoint);
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'abandoned' }));
    const controller = new AbortController();
    const poll = request(`${gateway.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'AmazonSQS.ReceiveMessage', 'content-type': 'application/x-amz-json-1.0' },
      body: JSON.stringify({ QueueUrl, WaitTimeSeconds: 20 }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    for (let i = 0; i < 2_000 && !(await isPollParked(gateway)); i++) await new Promise((r) => setTimeout(r, 1));
    expect(await isPollParked(gateway)).toBe(true);
    controller.abort();
    expect(await poll).toBe('aborted');
    for (let i = 0; i < 2_000 && (await isPollParked(gateway)); i++) await new Promise((r) => setTimeout(r, 1));
    expect(await isPollParked(gateway)).toBe(false);
  });

  it('ends long polls and drains when closed, without waiting for the poll to time out', async () => {
    const gateway = await startInProcessGateway();
    const sqs = new SQSClient({
      endpoint: gateway.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      maxAttempts: 1,
    });
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'closing' }));
    const poll = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 })).then(
      (r) => ({ messages: r.Messages?.length ?? 0 }),
      (err: unknown) => ({ error: err as Error }),
    );
    // The poll is parked once the queue layer holds a waiter for it.
    for (let i = 0; i < 2_000 && !(await isPollParked(gateway)); i++) await new Promise((r) => setTimeout(r, 1));
    expect(await isPollParked(gateway)).toBe(true);
    await gateway.close();
    // An empty answer, not a dropped connection: close() woke the poll instead of waiting out its
    // drain timeout (10 s, shorter than the poll's 20 s) and then cutting it off.
    const outcome = await poll;
    expect(outcome).toEqual({ messages: 0 });
    sqs.destroy();
  });
});

async function isPollParked(gateway: InProcessGateway): Promise<boolean> {
  const waiters = (gateway.service as unknown as { waiters: { waitingCount: number } }).waiters;
  return waiters.waitingCount > 0;
}
