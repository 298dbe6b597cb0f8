import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessCluster } from '../integration/cluster-harness.js';
import { sdkClient } from '../sqs/support/sdk-fixture.js';
import { hasBuiltCli } from '../sqs/support/sqs-endpoint.js';

/**
 * Three `raftq serve` processes, @aws-sdk/client-sqs clients spread over all of them, the leader
 * killed with SIGKILL in the middle of the run: every send a client saw acknowledged is received
 * afterwards (at least once), through the survivors. Sends that failed are not counted: their
 * outcome is unknown to the client, as with AWS.
 */

const sendsPerPhase = 150;

let cluster: ProcessCluster;
const clients = new Map<string, SQSClient>();

describe.skipIf(!hasBuiltCli())('three nodes behind SQS clients', () => {
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
    for (const [id, spec] of cluster.specs) {
      clients.set(id, sdkClient(`http://127.0.0.1:${spec.sqsPort}`, { maxAttempts: 8 }));
    }
  }, 120_000);

  afterAll(async () => {
    for (const client of clients.values()) client.destroy();
    await cluster?.close();
  });

  it('lose no acknowledged message when the leader is killed mid-run', async () => {
    const leader = await cluster.leader();
    const ids = [...cluster.specs.keys()];
    const follower = ids.find((id) => id !== leader) as string;
    await client(follower).send(
      new CreateQueueCommand({ QueueName: 'failover', Attributes: { VisibilityTimeout: '20' } }),
    );
    // Each client addresses the queue through its own node (the SDK sends to the QueueUrl's host).
    const urls = new Map<string, string>();
    for (const id of ids)
      urls.set(id, (await client(id).send(new GetQueueUrlCommand({ QueueName: 'failover' }))).QueueUrl as string);

    const acknowledged = new Set<string>();
    let failedSends = 0;
    const sendPhase = async (phase: string, nodes: readonly string[]) => {
      await Promise.all(
        nodes.map(async (id, lane) => {
          for (let i = lane; i < sendsPerPhase; i += nodes.length) {
            const body = `${phase}-${i}`;
            try {
              if (i % 5 === 0) {
                const entries = [0, 1, 2].map((k) => ({ Id: `e${k}`, MessageBody: `${body}-b${k}` }));
                const result = await client(id).send(
                  new SendMessageBatchCommand({ QueueUrl: urls.get(id), Entries: entries }),
                );
                for (const ok of result.Successful ?? []) acknowledged.add(`${body}-b${(ok.Id ?? '').slice(1)}`);
              } else {
                await client(id).send(new SendMessageCommand({ QueueUrl: urls.get(id), MessageBody: body }));
                acknowledged.add(body);
              }
            } catch {
              failedSends++;
            }
          }
        }),
      );
    };

    const before = sendPhase('before', ids);
    const killed = (async () => {
      while (acknowledged.size < sendsPerPhase / 3) await new Promise((r) => setTimeout(r, 5));
      await cluster.kill(leader);
    })();
    await Promise.all([before, killed]);
    const survivors = ids.filter((id) => id !== leader);
    await sendPhase('after', survivors);

    const received = new Set<string>();
    const deadlineMs = Date.now() + 90_000;
    while ([...acknowledged].some((b) => !received.has(b)) && Date.now() < deadlineMs) {
      await Promise.all(
        survivors.map(async (id) => {
          const { Messages = [] } = await client(id).send(
            new ReceiveMessageCommand({ QueueUrl: urls.get(id), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
          );
          for (const m of Messages) received.add(m.Body as string);
          if (Messages.length > 0) {
            await client(id).send(
              new DeleteMessageBatchCommand({
                QueueUrl: urls.get(id),
                Entries: Messages.map((m, k) => ({ Id: `d${k}`, ReceiptHandle: m.ReceiptHandle })),
              }),
            );
          }
        }),
      );
    }

    const lost = [...acknowledged].filter((b) => !received.has(b));
    console.log(
      `three-node failover: ${acknowledged.size} acknowledged, ${failedSends} sends failed, ${received.size} distinct received`,
    );
    expect(lost).toEqual([]);
    expect(acknowledged.size).toBeGreaterThan(sendsPerPhase);
    expect(failedSends).toBeLessThan(sendsPerPhase);
  }, 180_000);
});

describe.skipIf(!hasBuiltCli())('a node that lost its quorum', () => {
  it('answers SQS requests with a retryable 503, never hanging', async () => {
    const quorumless = await ProcessCluster.start(3);
    const [survivor, ...others] = [...quorumless.specs.keys()] as [string, ...string[]];
    const sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${quorumless.spec(survivor).sqsPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      maxAttempts: 1,
    });
    try {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'alone' }));
      for (const id of others) await quorumless.kill(id);
      const outcome = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'nobody to agree' })).then(
        () => 'acknowledged',
        (err: Error & { $metadata?: { httpStatusCode?: number } }) => `${err.name} ${err.$metadata?.httpStatusCode}`,
      );
      // An answer at all (rather than the test's timeout) is the bound: the commit wait gives up
      // after its own limit and says 503, so a client can retry elsewhere.
      expect(outcome).toBe('ServiceUnavailable 503');
    } finally {
      sqs.destroy();
      await quorumless.close();
    }
  }, 120_000);
});

function client(id: string): SQSClient {
  const c = clients.get(id);
  if (c === undefined) throw new Error(`no client for ${id}`);
  return c;
}
