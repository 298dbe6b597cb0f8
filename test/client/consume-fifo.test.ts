import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import type { Delivery } from '../../src/client/index.js';
import {
  createQueuePair,
  deferred,
  queueCounts,
  receiveOnce,
  startClientFixture,
  within,
  type ClientFixture,
} from './support/client-fixture.js';
import { GroupOrderRecorder } from './support/group-order-recorder.js';
import { startConsumer } from './support/running-consumer.js';

/**
 * consume() on FIFO queues against a real raftq node: within a group, handlers run one after
 * another in SequenceNumber order, a failure sends the group's later messages back so that the
 * failed one comes first again, and different groups still run in parallel.
 */

let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});

afterAll(async () => {
  await fixture?.close();
});

class FlakyDownstreamError extends Error {
  override readonly name = 'FlakyDownstreamError';
}

/** Sends `groupCount` × `messagesPerGroup` messages, groups interleaved; body "group:index". Returns each group's SequenceNumbers by index. */
async function sendGroups(
  queueUrl: string,
  groupCount: number,
  messagesPerGroup: number,
): Promise<Map<string, bigint[]>> {
  const entries: Array<{ groupId: string; index: number }> = [];
  for (let index = 0; index < messagesPerGroup; index++) {
    for (let group = 0; group < groupCount; group++) entries.push({ groupId: `g${group}`, index });
  }
  const sequenceNumbers = new Map<string, bigint[]>();
  for (let start = 0; start < entries.length; start += 10) {
    const batch = entries.slice(start, start + 10);
    const output = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map(({ groupId, index }, i) => ({
          Id: String(i),
          MessageBody: `${groupId}:${index}`,
          MessageGroupId: groupId,
          MessageDeduplicationId: `${groupId}-${index}`,
        })),
      }),
    );
    expect(output.Failed ?? []).toEqual([]);
    for (const sent of output.Successful ?? []) {
      const { groupId, index } = batch[Number(sent.Id)] as { groupId: string; index: number };
      const numbers = sequenceNumbers.get(groupId) ?? [];
      numbers[index] = BigInt(sent.SequenceNumber as string);
      sequenceNumbers.set(groupId, numbers);
    }
  }
  return sequenceNumbers;
}

async function sendToGroup(queueUrl: string, groupId: string, bodies: readonly string[]): Promise<void> {
  for (const body of bodies) {
    await fixture.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageGroupId: groupId,
        MessageDeduplicationId: body,
      }),
    );
  }
}

function parseBody(delivery: Delivery): { groupId: string; index: number } {
  const [groupId, index] = delivery.message.body.split(':');
  return { groupId: groupId as string, index: Number(index) };
}

describe('consume() on a FIFO queue', () => {
  it('runs each group in SequenceNumber order, one handler at a time, through random failures, with groups in parallel', async () => {
    const groupCount = 6;
    const messagesPerGroup = 15;
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 100, isFifo: true });
    const sequenceNumbers = await sendGroups(queueUrl, groupCount, messagesPerGroup);
    // Index order is SequenceNumber order: what the recorder checks is the order the queue defines.
    for (const numbers of sequenceNumbers.values()) {
      expect(numbers).toHaveLength(messagesPerGroup);
      expect(numbers.every((n, i) => i === 0 || n > (numbers[i - 1] as bigint))).toBe(true);
    }

    const prng = new SeededPrng(15);
    const recorder = new GroupOrderRecorder(messagesPerGroup);
    const allFinished = deferred();
    let failures = 0;
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      parallelism: 8,
      visibilityTimeoutSeconds: 5,
      gracePeriodMs: 5_000,
      handler: async (delivery) => {
        const { groupId, index } = parseBody(delivery);
        expect(delivery.message.messageGroupId).toBe(groupId);
        expect(BigInt(delivery.message.attributes['SequenceNumber'] as string)).toBe(
          sequenceNumbers.get(groupId)?.[index],
        );
        recorder.started(groupId, index);
        const delayMs = 5 + prng.intBelow(41);
        const isFailing = prng.intBelow(10) === 0;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        recorder.ended(groupId, index, !isFailing);
        if (recorder.finishedGroups().length === groupCount) allFinished.resolve();
        if (isFailing) {
          failures++;
          throw new FlakyDownstreamError(`${groupId}:${index} failed`);
        }
      },
    });
    // A bound for a broken consumer, which may never finish: the order checks below still run.
    const outcome = await within(allFinished.promise, 40_000, 'every group finishing').then(
      () => 'every group finished',
      (error: Error) => error.message,
    );
    await consumer.stop();

    expect(recorder.violations).toEqual([]);
    expect(outcome).toBe('every group finished');
    expect(recorder.finishedGroups().sort()).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5']);
    expect(failures).toBeGreaterThan(0);
    expect(recorder.hasGroupsOverlapped).toBe(true);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  }, 90_000);

  it('keeps the lease of messages waiting their turn in a group, so they never become visible while an earlier one runs', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, {
      maxReceiveCount: 5,
      isFifo: true,
      visibilityTimeoutSeconds: 2,
    });
    await sendToGroup(queueUrl, 'slow', ['first', 'second', 'third']);
    const firstStarted = deferred();
    const releaseFirst = deferred();
    const thirdDone = deferred();
    const handled: Array<{ body: string; receiveCount: number; isLeaseLost: boolean }> = [];
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      parallelism: 4,
      visibilityTimeoutSeconds: 2,
      handler: async (delivery) => {
        if (delivery.message.body === 'first') {
          firstStarted.resolve();
          await releaseFirst.promise;
        }
        handled.push({
          body: delivery.message.body,
          receiveCount: delivery.receiveCount,
          isLeaseLost: delivery.lease.signal.aborted,
        });
        if (delivery.message.body === 'third') thirdDone.resolve();
      },
    });
    await within(firstStarted.promise, 10_000, 'the first handler start');
    // Three visibility timeouts: the two messages behind the first stay in flight, counted as not
    // visible, at every look (a lapsed lease would show them visible).
    const looks: Array<{ visible: number; notVisible: number }> = [];
    const other = fixture.newClient();
    for (let poll = 0; poll < 3; poll++) {
      await receiveOnce(other, queueUrl, { waitTimeSeconds: 2, visibilityTimeoutSeconds: 30 }).then((stolen) =>
        expect(stolen).toEqual([]),
      );
      looks.push(await queueCounts(fixture.sqs, queueUrl));
    }
    releaseFirst.resolve();
    await within(thirdDone.promise, 10_000, 'the third message handled');
    await consumer.stop();
    expect(looks).toEqual([
      { visible: 0, notVisible: 3 },
      { visible: 0, notVisible: 3 },
      { visible: 0, notVisible: 3 },
    ]);
    expect(handled).toEqual([
      { body: 'first', receiveCount: 1, isLeaseLost: false },
      { body: 'second', receiveCount: 1, isLeaseLost: false },
      { body: 'third', receiveCount: 1, isLeaseLost: false },
    ]);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it("sends a group's later messages back unprocessed when one fails, so that the failed one runs first again after its retry delay", async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5, isFifo: true });
    await sendToGroup(queueUrl, 'retried', ['a', 'b', 'c']);
    const calls: string[] = [];
    const cDone = deferred();
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      parallelism: 4,
      visibilityTimeoutSeconds: 30,
      retryDelayMs: 1_000,
      handler: (delivery) => {
        calls.push(`${delivery.message.body}${delivery.receiveCount}`);
        if (delivery.message.body === 'c') cDone.resolve();
        if (delivery.message.body === 'a' && delivery.receiveCount === 1) throw new FlakyDownstreamError('a failed');
      },
    });
    await within(cDone.promise, 15_000, 'the last message handled');
    await consumer.stop();
    // b and c came back to the queue unprocessed (hence their second receive) and waited behind a,
    // although a's retry made it invisible for a second and they were visible at once.
    expect(calls).toEqual(['a1', 'a2', 'b2', 'c2']);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it("sends a group's later messages back when a handled message cannot be deleted, so that its repeat still comes first", async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5, isFifo: true });
    await sendToGroup(queueUrl, 'undeletable', ['a', 'b', 'c']);
    // The first acknowledgement is refused as the sender's fault (no repeat): a stays on the queue.
    const client = fixture.newClient();
    let isFirstDelete = true;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'DeleteMessageBatchCommand' || !isFirstDelete) return next(args);
        isFirstDelete = false;
        const entries = (args.input as { Entries: Array<{ Id: string }> }).Entries;
        const Failed = entries.map(({ Id }) => ({
          Id,
          Code: 'ReceiptHandleIsInvalid',
          SenderFault: true,
          Message: 'refused by the test',
        }));
        return { output: { Successful: [], Failed, $metadata: {} }, response: {} } as Awaited<ReturnType<typeof next>>;
      },
      { step: 'initialize', name: 'refuseFirstDelete' },
    );
    const calls: string[] = [];
    const cDone = deferred();
    const consumer = startConsumer({
      queueUrl,
      client,
      parallelism: 4,
      visibilityTimeoutSeconds: 1,
      handler: (delivery) => {
        calls.push(`${delivery.message.body}${delivery.receiveCount}`);
        if (delivery.message.body === 'c') cDone.resolve();
      },
    });
    await within(cDone.promise, 15_000, 'the last message handled');
    await consumer.stop();
    expect(calls).toEqual(['a1', 'a2', 'b2', 'c2']);
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 0 });
  });

  it('releases the messages waiting their turn at once when stopped, and runs none of them', async () => {
    const { queueUrl } = await createQueuePair(fixture.sqs, { maxReceiveCount: 5, isFifo: true });
    await sendToGroup(queueUrl, 'stopped', ['a', 'b', 'c']);
    const aStarted = deferred();
    const releaseA = deferred();
    const calls: string[] = [];
    const consumer = startConsumer({
      queueUrl,
      client: fixture.sqs,
      parallelism: 4,
      visibilityTimeoutSeconds: 30,
      gracePeriodMs: 30_000,
      handler: async (delivery) => {
        calls.push(delivery.message.body);
        if (delivery.message.body === 'a') {
          aStarted.resolve();
          await releaseA.promise;
        }
      },
    });
    await within(aStarted.promise, 10_000, 'the first handler start');
    expect(await queueCounts(fixture.sqs, queueUrl)).toEqual({ visible: 0, notVisible: 3 });
    consumer.abort();
    // b and c are visible again while a still runs, not in 30 s when their timeout would end.
    // (Looked at before a ends: then the long poll the abort cancelled may still be waiting on
    // the node, and it would claim them once a is deleted.)
    const whileARuns = await within(
      (async () => {
        for (;;) {
          const counts = await queueCounts(fixture.sqs, queueUrl);
          if (counts.visible >= 2) return counts;
        }
      })(),
      10_000,
      'b and c back on the queue',
    );
    expect(whileARuns).toEqual({ visible: 2, notVisible: 1 });
    releaseA.resolve();
    await within(consumer.finished, 10_000, 'consume() resolving');
    expect(calls).toEqual(['a']);
  });
});
