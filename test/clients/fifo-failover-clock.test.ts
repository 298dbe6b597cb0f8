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
import { ProcessCluster, waitFor } from '../integration/cluster-harness.js';
import { sdkClient } from '../sqs/support/sdk-fixture.js';
import { hasBuiltCli } from '../sqs/support/sqs-endpoint.js';

/**
 * Trap 16 (docs/TRAPS.md) on three real nodes: FIFO order is SequenceNumber order, never send time. Two sends in
 * the same millisecond (one batch), a send through a node whose cluster clock is 2 s behind, and
 * — after the leader is killed and a node whose clock is behind takes over — sends stamped
 * earlier than the ones before the failover: the group is delivered exactly in send order.
 */

const clockBehindMs = -2_000;

let cluster: ProcessCluster;
const clients = new Map<string, SQSClient>();

function client(id: string): SQSClient {
  let existing = clients.get(id);
  if (existing === undefined) {
    const spec = cluster.spec(id);
    existing = sdkClient(`http://127.0.0.1:${spec.sqsPort}`, { maxAttempts: 8 });
    clients.set(id, existing);
  }
  return existing;
}

describe.skipIf(!hasBuiltCli())('FIFO order across a failover to a node whose clock is behind', () => {
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients.values()) c.destroy();
    await cluster?.close();
  });

  it('delivers a group in SequenceNumber order, whatever the clocks that stamped its sends', async () => {
    const oldLeader = await cluster.leader();
    const followers = [...cluster.specs.keys()].filter((id) => id !== oldLeader);
    for (const id of followers) {
      const answer = await cluster.admin(id, 'POST', '/debug/clock-offset', { offsetMs: clockBehindMs });
      expect(answer.status).toBe(200);
    }
    await client(oldLeader).send(
      new CreateQueueCommand({ QueueName: 'clock.fifo', Attributes: { FifoQueue: 'true', VisibilityTimeout: '30' } }),
    );
    const urlVia = async (id: string) =>
      (await client(id).send(new GetQueueUrlCommand({ QueueName: 'clock.fifo' }))).QueueUrl as string;

    const sentOrder: Array<{ body: string; sequenceNumber: bigint }> = [];
    const sendBatch = async (id: string, bodies: readonly string[]) => {
      const out = await client(id).send(
        new SendMessageBatchCommand({
          QueueUrl: await urlVia(id),
          Entries: bodies.map((b, i) => ({
            Id: `e${i}`,
            MessageBody: b,
            MessageGroupId: 'g',
            MessageDeduplicationId: b,
          })),
        }),
      );
      expect(out.Failed ?? []).toEqual([]);
      for (const [i, body] of bodies.entries()) {
        const result = out.Successful?.find((s) => s.Id === `e${i}`);
        sentOrder.push({ body, sequenceNumber: BigInt(result?.SequenceNumber as string) });
      }
    };
    const sendOne = async (id: string, body: string) => {
      const out = await client(id).send(
        new SendMessageCommand({
          QueueUrl: await urlVia(id),
          MessageBody: body,
          MessageGroupId: 'g',
          MessageDeduplicationId: body,
        }),
      );
      sentOrder.push({ body, sequenceNumber: BigInt(out.SequenceNumber as string) });
    };

    // One batch: two sends stamped with the same millisecond.
    await sendBatch(oldLeader, ['a1', 'a2']);
    // Through a follower whose clock is behind (its txn carries the earlier time).
    await sendOne(followers[0] as string, 'b1');
    await sendBatch(oldLeader, ['c1', 'c2']);

    await cluster.kill(oldLeader);
    let newLeader = '';
    await waitFor(
      async () => {
        newLeader = await cluster.leader().catch(() => '');
        return followers.includes(newLeader);
      },
      20_000,
      'a follower whose clock is behind leads',
    );
    // Stamped by the new leader's clock, 2 s behind the sends before the failover.
    await sendBatch(newLeader, ['d1', 'd2']);
    await sendOne(followers.find((id) => id !== newLeader) as string, 'e1');

    for (let i = 1; i < sentOrder.length; i++) {
      expect(
        (sentOrder[i] as { sequenceNumber: bigint }).sequenceNumber >
          (sentOrder[i - 1] as { sequenceNumber: bigint }).sequenceNumber,
      ).toBe(true);
    }
    const delivered: string[] = [];
    const sentAtMs = new Map<string, number>();
    const url = await urlVia(newLeader);
    await waitFor(
      async () => {
        const out = await client(newLeader).send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const messages = out.Messages ?? [];
        delivered.push(...messages.map((m) => m.Body as string));
        for (const m of messages) sentAtMs.set(m.Body as string, Number(m.Attributes?.SentTimestamp));
        if (messages.length > 0) {
          await client(newLeader).send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle as string })),
            }),
          );
        }
        return delivered.length >= sentOrder.length;
      },
      30_000,
      'every message of the group delivered',
    );
    expect(delivered).toEqual(sentOrder.map((s) => s.body));
    // The scenario is real: sends after the failover carry earlier times than sends before it,
    // so an order by send time (or visibleAt) would have put them first.
    expect(sentAtMs.get('d1') as number).toBeLessThan(sentAtMs.get('c2') as number);
    expect(sentAtMs.get('a1')).toBe(sentAtMs.get('a2'));
  }, 120_000);
});
