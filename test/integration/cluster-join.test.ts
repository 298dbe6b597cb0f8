import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessCluster, sqsCall, waitFor } from './cluster-harness.js';

describe('a node started with --join before a member adds it', () => {
  let cluster: ProcessCluster;
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('answers SQS requests at once with a retryable ServiceUnavailable saying it is not yet a member, and /ready says not ready', async () => {
    await cluster.allocate('n4');
    cluster.spawnNode('n4', { peers: ['n1', 'n2', 'n3'], join: true });
    await waitFor(
      async () => {
        if (!cluster.isRunning('n4')) throw new Error(cluster.startFailure('n4'));
        return (await cluster.admin('n4', 'GET', '/health').catch(() => ({ status: 0 }))).status === 200;
      },
      30_000,
      'n4 to start',
    );

    for (const [action, input] of [
      ['CreateQueue', { QueueName: 'joined' }],
      ['ListQueues', {}],
    ] as const) {
      const answer = await sqsCall(cluster, 'n4', action, input);
      expect(answer.status, JSON.stringify(answer.json)).toBe(503);
      expect(answer.json.__type).toBe('com.amazonaws.sqs#ServiceUnavailable');
      expect(answer.json.message).toContain('n4 is not yet a member of the cluster');
    }
    const ready = await cluster.admin('n4', 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.json.ready).toBe(false);
  });

  it('serves SQS requests normally once a member adds it', async () => {
    const leader = await cluster.leader();
    const added = await cluster.admin(leader, 'POST', '/members', {
      id: 'n4',
      address: `127.0.0.1:${cluster.spec('n4').raftPort}`,
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    await cluster.waitReady('n4');
    const created = await sqsCall(cluster, 'n4', 'CreateQueue', { QueueName: 'joined' });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const queueUrl = created.json.QueueUrl as string;
    expect(
      (await sqsCall(cluster, 'n4', 'SendMessage', { QueueUrl: queueUrl, MessageBody: 'hello from n4' })).status,
    ).toBe(200);
    const received = await sqsCall(cluster, 'n4', 'ReceiveMessage', { QueueUrl: queueUrl, WaitTimeSeconds: 1 });
    expect(received.status).toBe(200);
    expect(received.json.Messages.map((m: { Body: string }) => m.Body)).toEqual(['hello from n4']);
  });
});
