import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkClient } from '../sqs/support/sdk-fixture.js';
import { hasBuiltCli } from '../sqs/support/sqs-endpoint.js';
import { ProcessCluster } from './cluster-harness.js';

/**
 * Three `raftq serve` processes. A follower hands send, receive, delete and visibility changes to
 * the leader over its operation stream and answers with what the leader answered: the same
 * results and the same errors as the leader gives; a long poll waits on the leader; a leader stopped
 * mid-run is bridged without an error; and when the leader is killed mid-run, no acknowledged send
 * is lost and no send is enqueued twice.
 */

let cluster: ProcessCluster;
let leader: string;
let follower: string;
const clients = new Map<string, SQSClient>();

function client(id: string): SQSClient {
  const existing = clients.get(id);
  if (existing !== undefined) return existing;
  // One attempt: a retry by the client would be a new send; this test is about the node's own re-forwarding.
  const created = sdkClient(`http://127.0.0.1:${cluster.spec(id).sqsPort}`, { maxAttempts: 1 });
  clients.set(id, created);
  return created;
}

function queueUrl(id: string, name: string): string {
  return `http://127.0.0.1:${cluster.spec(id).sqsPort}/000000000000/${name}`;
}

/** A metric's value from a node's /metrics (0 when absent). */
async function metric(id: string, line: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${cluster.spec(id).adminPort}/metrics`, {
    signal: AbortSignal.timeout(5_000),
  });
  const found = (await response.text()).split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

/** What a client sees of a failed request: the error's name, code, message and HTTP status. */
async function failureOf(
  request: Promise<unknown>,
): Promise<{ name: string; code: unknown; message: string; status: number | undefined }> {
  try {
    await request;
  } catch (error) {
    const e = error as { name: string; Code?: unknown; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, code: e.Code, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  throw new Error('the request succeeded');
}

describe.skipIf(!hasBuiltCli())('operation forwarding on three nodes', () => {
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
    leader = await cluster.leader();
    follower = [...cluster.specs.keys()].find((id) => id !== leader) as string;
  }, 120_000);

  afterAll(async () => {
    for (const c of clients.values()) c.destroy();
    await cluster?.close();
  });

  it('sends, receives, changes visibility and deletes through a follower, on the leader', async () => {
    await client(leader).send(
      new CreateQueueCommand({ QueueName: 'through', Attributes: { VisibilityTimeout: '60' } }),
    );
    const forwardedBefore = await metric(follower, 'raftq_forwarded_ops_total{result="ok"}');
    const servedBefore = await metric(leader, 'raftq_served_forwarded_ops_total{result="ok"}');

    const sent = await client(follower).send(
      new SendMessageCommand({
        QueueUrl: queueUrl(follower, 'through'),
        MessageBody: 'hello',
        MessageAttributes: { k: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) } },
      }),
    );
    expect(sent.MessageId).toMatch(/[0-9a-f-]{36}/);
    expect(sent.MD5OfMessageBody).toBe('5d41402abc4b2a76b9719d911017c592');
    const batch = await client(follower).send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(follower, 'through'),
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'two' },
        ],
      }),
    );
    expect(batch.Failed ?? []).toEqual([]);
    expect(batch.Successful?.map((s) => s.Id).sort()).toEqual(['a', 'b']);

    const received = await client(follower).send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl(follower, 'through'),
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 5,
        MessageAttributeNames: ['All'],
        AttributeNames: ['All'],
      }),
    );
    const byBody = new Map((received.Messages ?? []).map((m) => [m.Body, m]));
    // A receive may answer with fewer than all; what it answers is what was sent.
    expect(byBody.size).toBeGreaterThan(0);
    const hello = byBody.get('hello') ?? (await receiveBody(follower, 'through', 'hello'));
    expect(hello.MessageId).toBe(sent.MessageId);
    expect(hello.MessageAttributes?.['k']?.BinaryValue).toEqual(new Uint8Array([1, 2, 3]));

    // Visible again at once, through the follower; the leader then receives it a second time.
    await client(follower).send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl(follower, 'through'),
        ReceiptHandle: hello.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const again = await receiveBody(leader, 'through', 'hello');
    expect(again.MessageId).toBe(sent.MessageId);
    expect(again.Attributes?.['ApproximateReceiveCount']).toBe('2');
    await client(follower).send(
      new DeleteMessageCommand({ QueueUrl: queueUrl(follower, 'through'), ReceiptHandle: again.ReceiptHandle }),
    );
    const attributes = await client(leader).send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl(leader, 'through'),
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(
      Number(attributes.Attributes?.['ApproximateNumberOfMessages']) +
        Number(attributes.Attributes?.['ApproximateNumberOfMessagesNotVisible']),
    ).toBe(2);

    // They went over the stream, and ran on the leader.
    expect(await metric(follower, 'raftq_forwarded_ops_total{result="ok"}')).toBeGreaterThanOrEqual(
      forwardedBefore + 5,
    );
    expect(await metric(leader, 'raftq_served_forwarded_ops_total{result="ok"}')).toBeGreaterThanOrEqual(
      servedBefore + 5,
    );
  }, 60_000);

  it('answers with the errors the leader answers with', async () => {
    await client(leader).send(new CreateQueueCommand({ QueueName: 'errors.fifo', Attributes: { FifoQueue: 'true' } }));
    await client(leader).send(new CreateQueueCommand({ QueueName: 'errors' }));
    const requests: Array<[string, (id: string) => Promise<unknown>]> = [
      [
        'send to a missing queue',
        (id) => client(id).send(new SendMessageCommand({ QueueUrl: queueUrl(id, 'missing'), MessageBody: 'x' })),
      ],
      [
        'receive from a missing queue',
        (id) => client(id).send(new ReceiveMessageCommand({ QueueUrl: queueUrl(id, 'missing') })),
      ],
      [
        'delete from a missing queue',
        (id) => client(id).send(new DeleteMessageCommand({ QueueUrl: queueUrl(id, 'missing'), ReceiptHandle: 'abc' })),
      ],
      [
        'a FIFO send without a dedup id',
        (id) =>
          client(id).send(
            new SendMessageCommand({ QueueUrl: queueUrl(id, 'errors.fifo'), MessageBody: 'x', MessageGroupId: 'g' }),
          ),
      ],
      [
        'a visibility change with a bad handle',
        (id) =>
          client(id).send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queueUrl(id, 'errors'),
              ReceiptHandle: 'not-a-handle',
              VisibilityTimeout: 5,
            }),
          ),
      ],
    ];
    for (const [what, request] of requests) {
      const fromLeader = await failureOf(request(leader));
      const fromFollower = await failureOf(request(follower));
      expect(fromFollower, what).toEqual(fromLeader);
    }
    expect((await failureOf(requests[0]?.[1](follower) as Promise<unknown>)).name).toBe('QueueDoesNotExist');
    // A batch's per-entry failures too.
    const batch = (id: string) =>
      client(id).send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl(id, 'errors'),
          Entries: [{ Id: 'bad', ReceiptHandle: 'not-a-handle' }],
        }),
      );
    const [fromLeader, fromFollower] = [await batch(leader), await batch(follower)];
    expect(fromFollower.Failed).toEqual(fromLeader.Failed);
    expect(fromFollower.Failed?.[0]?.Code).toBe('ReceiptHandleIsInvalid');
  }, 60_000);

  it('holds a long poll from a follower on the leader until a message arrives', async () => {
    await client(leader).send(new CreateQueueCommand({ QueueName: 'long-poll' }));
    const waitingBefore = await metric(leader, 'raftq_served_forwarded_ops_total{result="ok"}');
    const polling = client(follower).send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl(follower, 'long-poll'), WaitTimeSeconds: 20 }),
    );
    const sent = await client(leader).send(
      new SendMessageCommand({ QueueUrl: queueUrl(leader, 'long-poll'), MessageBody: 'awaited' }),
    );
    const { Messages = [] } = await polling;
    expect(Messages.map((m) => m.MessageId)).toEqual([sent.MessageId]);
    expect(await metric(leader, 'raftq_served_forwarded_ops_total{result="ok"}')).toBeGreaterThan(waitingBefore);
  }, 60_000);

  it('bridges a leader stopped with SIGTERM mid-run: every send through a follower is answered, once', async () => {
    const stopped = leader;
    const { acknowledged, failed, total } = await sendThroughFollowers('handoff', async () => {
      expect(await cluster.stop(stopped)).toBe(0);
    });
    const survivors = [...cluster.specs.keys()].filter((id) => id !== stopped);
    await expectEachOnce('handoff', survivors, acknowledged);
    // The followers waited out the hand-off and asked the new leader: no client saw an error.
    expect(failed).toBe(0);
    expect(acknowledged.size).toBe(total);
    cluster.spawnNode(stopped, { peers: [...cluster.specs.keys()] });
    await cluster.waitReady(stopped);
    await cluster.converged();
    leader = await cluster.leader();
  }, 180_000);

  it('loses no acknowledged send and enqueues none twice when the leader is killed mid-run', async () => {
    const killed = leader;
    const { acknowledged, failed, total } = await sendThroughFollowers('failover', () => cluster.kill(killed));
    if (process.env['RAFTQ_TEST_VERBOSE'] === '1') {
      for (const id of cluster.specs.keys())
        if (id !== killed)
          console.log(
            id,
            'lost answers asked again:',
            await metric(id, 'raftq_forwarded_ops_total{result="lost"}'),
            'failed sends:',
            failed,
          );
    }
    await expectEachOnce(
      'failover',
      [...cluster.specs.keys()].filter((id) => id !== killed),
      acknowledged,
    );
    expect(failed + acknowledged.size).toBe(total);
  }, 180_000);
});

/**
 * Sends unique bodies through both followers (four lanes each) and runs `disrupt` once half of
 * them were acknowledged. Returns the message id each acknowledged body got.
 */
async function sendThroughFollowers(
  queue: string,
  disrupt: () => Promise<void>,
): Promise<{ acknowledged: Map<string, string>; failed: number; total: number }> {
  await client(leader).send(new CreateQueueCommand({ QueueName: queue, Attributes: { VisibilityTimeout: '60' } }));
  const followers = [...cluster.specs.keys()].filter((id) => id !== leader);
  const sendsPerFollower = 200;
  const acknowledged = new Map<string, string>();
  let failed = 0;
  const sending = Promise.all(
    followers.flatMap((id) =>
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = lane; i < sendsPerFollower; i += 4) {
          const body = `${id}-${i}`;
          try {
            const result = await client(id).send(
              new SendMessageCommand({ QueueUrl: queueUrl(id, queue), MessageBody: body }),
            );
            acknowledged.set(body, result.MessageId as string);
          } catch {
            failed++;
          }
        }
      }),
    ),
  );
  const disrupting = (async () => {
    while (acknowledged.size < sendsPerFollower / 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await disrupt();
  })();
  await Promise.all([sending, disrupting]);
  expect(acknowledged.size).toBeGreaterThan(sendsPerFollower / 2);
  return { acknowledged, failed, total: sendsPerFollower * followers.length };
}

/**
 * Receives every copy of every body through `nodes` until each acknowledged one was seen, deleting
 * each at once (the visibility timeout is long): each acknowledged body must come exactly once,
 * under the id its send was answered with, and no body may come twice.
 */
async function expectEachOnce(
  queue: string,
  nodes: readonly string[],
  acknowledged: ReadonlyMap<string, string>,
): Promise<void> {
  const idsByBody = new Map<string, Set<string>>();
  const deliveries = new Map<string, number>();
  const deadlineMs = Date.now() + 90_000;
  let emptyRounds = 0;
  while (Date.now() < deadlineMs && ([...acknowledged.keys()].some((b) => !idsByBody.has(b)) || emptyRounds < 2)) {
    const id = nodes[emptyRounds % nodes.length] as string;
    const { Messages = [] } = await client(id)
      .send(new ReceiveMessageCommand({ QueueUrl: queueUrl(id, queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }))
      .catch(() => ({ Messages: [] }));
    emptyRounds = Messages.length === 0 ? emptyRounds + 1 : 0;
    for (const m of Messages) {
      const body = m.Body as string;
      idsByBody.set(body, (idsByBody.get(body) ?? new Set<string>()).add(m.MessageId as string));
      deliveries.set(body, (deliveries.get(body) ?? 0) + 1);
      await client(id).send(
        new DeleteMessageCommand({ QueueUrl: queueUrl(id, queue), ReceiptHandle: m.ReceiptHandle }),
      );
    }
  }
  expect([...acknowledged.keys()].filter((b) => !idsByBody.has(b))).toEqual([]);
  expect([...deliveries].filter(([, count]) => count !== 1).map(([body]) => body)).toEqual([]);
  for (const [body, messageId] of acknowledged) expect(idsByBody.get(body)).toEqual(new Set([messageId]));
}

/** Receives from `id` until the message with `body` comes (other messages are left to time out). */
async function receiveBody(id: string, queue: string, body: string): Promise<Message> {
  for (let i = 0; i < 20; i++) {
    const { Messages = [] } = await client(id).send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl(id, queue),
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 2,
        MessageAttributeNames: ['All'],
        AttributeNames: ['All'],
      }),
    );
    const found = Messages.find((m) => m.Body === body);
    if (found !== undefined) return found;
  }
  throw new Error(`no message ${body} on ${id}`);
}
