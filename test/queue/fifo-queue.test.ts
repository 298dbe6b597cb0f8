import { describe, expect, it } from 'vitest';
import {
  InvalidParameterValueError,
  MissingParameterError,
  ReceiptHandleIsInvalidError,
} from '../../src/queue/errors.js';
import { partitionOfGroup } from '../../src/queue/partitioning.js';
import type { SendResult } from '../../src/queue/queue-api.js';
import { encodeReceiptHandle } from '../../src/queue/receipt-handle.js';
import { entry, makeHarness, receiveAll } from './support/queue-harness.js';

async function fifo(attributes: Record<string, string> = {}) {
  const harness = makeHarness();
  await harness.service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true', ...attributes }, tags: {} });
  return harness;
}

function ok(result: unknown): SendResult {
  if (typeof result !== 'object' || result === null || 'error' in result)
    throw new Error(`send failed: ${JSON.stringify(result)}`);
  return result as SendResult;
}

const g = (group: string, dedup: string, body = dedup) =>
  entry(dedup, body, { messageGroupId: group, messageDeduplicationId: dedup });

describe('FIFO queues', () => {
  it('sends get increasing sequence numbers, in batches too, and a group is delivered in sequence order', async () => {
    const { service } = await fifo();
    const first = await service.sendMessages('f.fifo', [g('a', '1'), g('a', '2'), g('b', '3')], { senderId: 's' });
    const second = await service.sendMessages('f.fifo', [g('a', '4')], { senderId: 's' });
    const sequences = [...first, ...second].map((r) => BigInt(ok(r).sequenceNumber ?? '-1'));
    for (let i = 1; i < sequences.length; i++) expect(sequences[i]! > sequences[i - 1]!).toBe(true);
    const received = await service.receiveMessages('f.fifo', { maxMessages: 10 });
    const groupA = received.filter((m) => m.attributes['MessageGroupId'] === 'a').map((m) => m.body);
    expect(groupA).toEqual(['1', '2', '4']);
    expect(received.find((m) => m.body === '1')?.attributes['SequenceNumber']).toBe(ok(first[0]).sequenceNumber);
  });

  it('while a message of a group is in flight no other message of that group is delivered, but other groups flow', async () => {
    const { service, executor } = await fifo({ VisibilityTimeout: '30' });
    await service.sendMessages('f.fifo', [g('a', '1'), g('a', '2'), g('b', '3')], { senderId: 's' });
    const [head] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
    expect(head?.body).toBe('1');
    expect((await receiveAll(service, 'f.fifo')).map((m) => m.body)).toEqual(['3']);
    executor.clock.advanceMs(30_000);
    // The head's visibility expired: it comes back before its successor, never after.
    const again = await service.receiveMessages('f.fifo', { maxMessages: 10 });
    expect(again.filter((m) => m.attributes['MessageGroupId'] === 'a').map((m) => m.body)).toEqual(['1', '2']);
  });

  it('concurrent FIFO sends on one node queue up instead of conflicting on the sequence counter, and all get distinct numbers', async () => {
    const { service, executor } = await fifo();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        service.sendMessages('f.fifo', [g(`g${i % 3}`, `d${i}`)], { senderId: 's' }),
      ),
    );
    const sequences = results.map((r) => ok(r[0]).sequenceNumber);
    expect(new Set(sequences).size).toBe(12);
    expect(executor.conflicts).toBe(0);
    expect(await service.getQueueAttributes('f.fifo', ['ApproximateNumberOfMessages'])).toEqual({
      ApproximateNumberOfMessages: '12',
    });
  });

  it('a group stays in sequence order when a later send is stamped by a clock that went backwards (trap 16)', async () => {
    const { service, executor } = await fifo();
    const t = executor.nowMs();
    await service.sendMessages('f.fifo', [g('a', 'first')], { senderId: 's' });
    await service.sendMessages('f.fifo', [g('a', 'same-ms')], { senderId: 's' });
    executor.clock.setMs(t - 2_000);
    await service.sendMessages('f.fifo', [g('a', 'clock-behind')], { senderId: 's' });
    executor.clock.setMs(t + 1);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [message] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
      order.push(message?.body ?? 'none');
      await service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle: message?.receiptHandle ?? '' }]);
    }
    expect(order).toEqual(['first', 'same-ms', 'clock-behind']);
  });

  it('a duplicate inside the 5-minute window answers with the original id and sequence and enqueues nothing', async () => {
    const { service, executor } = await fifo();
    const original = ok((await service.sendMessages('f.fifo', [g('a', 'd1', 'one')], { senderId: 's' }))[0]);
    executor.clock.advanceMs(299_999);
    const duplicate = ok((await service.sendMessages('f.fifo', [g('a', 'd1', 'two')], { senderId: 's' }))[0]);
    expect(duplicate.messageId).toBe(original.messageId);
    expect(duplicate.sequenceNumber).toBe(original.sequenceNumber);
    expect((await receiveAll(service, 'f.fifo')).map((m) => m.body)).toEqual(['one']);
    executor.clock.advanceMs(1);
    const afterWindow = ok((await service.sendMessages('f.fifo', [g('b', 'd1', 'three')], { senderId: 's' }))[0]);
    expect(afterWindow.messageId).not.toBe(original.messageId);
  });

  it('a FIFO batch with repeated dedup ids enqueues once, with monotonic sequence numbers (trap 7)', async () => {
    const { service } = await fifo();
    const results = (
      await service.sendMessages(
        'f.fifo',
        [
          g('a', 'x', 'b1'),
          entry('dup', 'b2', { messageGroupId: 'a', messageDeduplicationId: 'x' }),
          g('a', 'y', 'b3'),
        ],
        { senderId: 's' },
      )
    ).map(ok);
    expect(results[1]?.messageId).toBe(results[0]?.messageId);
    expect(BigInt(results[2]?.sequenceNumber ?? '0') > BigInt(results[0]?.sequenceNumber ?? '0')).toBe(true);
    expect((await receiveAll(service, 'f.fifo')).map((m) => m.body)).toEqual(['b1', 'b3']);
  });

  it('content-based deduplication hashes the body; DeduplicationScope=messageGroup keeps equal ids of different groups apart (trap 15)', async () => {
    const { service } = await fifo({ ContentBasedDeduplication: 'true', DeduplicationScope: 'messageGroup' });
    const send = (group: string, body: string) =>
      service.sendMessages('f.fifo', [entry('e', body, { messageGroupId: group })], { senderId: 's' });
    const a1 = ok((await send('a', 'same body'))[0]);
    const a2 = ok((await send('a', 'same body'))[0]);
    const b1 = ok((await send('b', 'same body'))[0]);
    expect(a2.messageId).toBe(a1.messageId);
    expect(b1.messageId).not.toBe(a1.messageId);
    expect(await receiveAll(service, 'f.fifo')).toHaveLength(2);
  });

  it('dedup keys of group and id never run into each other: (a, b:c) and (a:b, c) are different messages (trap 15)', async () => {
    const { service } = await fifo({ DeduplicationScope: 'messageGroup' });
    const first = ok((await service.sendMessages('f.fifo', [g('a', 'b:c')], { senderId: 's' }))[0]);
    const second = ok((await service.sendMessages('f.fifo', [g('a:b', 'c')], { senderId: 's' }))[0]);
    const third = ok((await service.sendMessages('f.fifo', [g('a\u0000b', 'c')], { senderId: 's' }))[0]);
    expect(new Set([first.messageId, second.messageId, third.messageId]).size).toBe(3);
  });

  it('with DeduplicationScope=queue an id repeated in another group is a duplicate', async () => {
    const { service } = await fifo();
    const a = ok((await service.sendMessages('f.fifo', [g('a', 'same')], { senderId: 's' }))[0]);
    const b = ok((await service.sendMessages('f.fifo', [g('b', 'same')], { senderId: 's' }))[0]);
    expect(b.messageId).toBe(a.messageId);
  });

  it('FIFO sends without a group or without any dedup id fail the whole request; a per-message delay fails its entry', async () => {
    const { service } = await fifo();
    await expect(
      service.sendMessages('f.fifo', [g('a', 'b'), entry('nogroup', 'x', { messageDeduplicationId: 'a' })], {
        senderId: 's',
      }),
    ).rejects.toBeInstanceOf(MissingParameterError);
    await expect(
      service.sendMessages('f.fifo', [g('a', 'b'), entry('nodedup', 'x', { messageGroupId: 'a' })], { senderId: 's' }),
    ).rejects.toBeInstanceOf(InvalidParameterValueError);
    expect(await service.receiveMessages('f.fifo', { maxMessages: 10 })).toEqual([]);
    const results = await service.sendMessages('f.fifo', [g('a', 'b'), { ...g('a', 'c'), delaySeconds: 5 }], {
      senderId: 's',
    });
    const errorOf = (i: number) => {
      const r = results[i];
      return r !== undefined && 'error' in r ? r.error : undefined;
    };
    expect(errorOf(0)).toBeUndefined();
    expect(errorOf(1)).toBeInstanceOf(InvalidParameterValueError);
  });

  it('a receive retried with the same ReceiveRequestAttemptId returns the same messages and handles', async () => {
    const { service } = await fifo();
    await service.sendMessages('f.fifo', [g('a', '1'), g('b', '2')], { senderId: 's' });
    const first = await service.receiveMessages('f.fifo', { maxMessages: 10, receiveRequestAttemptId: 'try-1' });
    const retry = await service.receiveMessages('f.fifo', { maxMessages: 10, receiveRequestAttemptId: 'try-1' });
    expect(first).toHaveLength(2);
    expect(retry).toEqual(first);
  });

  it('a ReceiveRequestAttemptId whose messages were all deleted starts a fresh receive', async () => {
    const { service } = await fifo();
    await service.sendMessages('f.fifo', [g('a', '1'), g('a', '2')], { senderId: 's' });
    const [first] = await service.receiveMessages('f.fifo', { maxMessages: 1, receiveRequestAttemptId: 'try-1' });
    await service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle: first?.receiptHandle ?? '' }]);
    const next = await service.receiveMessages('f.fifo', { maxMessages: 1, receiveRequestAttemptId: 'try-1' });
    expect(next.map((m) => m.body)).toEqual(['2']);
  });

  it('purge clears deduplication state but never sends sequence numbers backwards', async () => {
    const { service, executor } = await fifo();
    const before = ok((await service.sendMessages('f.fifo', [g('a', 'd')], { senderId: 's' }))[0]);
    await service.purgeQueue('f.fifo');
    executor.clock.advanceMs(1);
    const after = ok((await service.sendMessages('f.fifo', [g('a', 'd')], { senderId: 's' }))[0]);
    expect(after.messageId).not.toBe(before.messageId);
    expect(BigInt(after.sequenceNumber ?? '0') > BigInt(before.sequenceNumber ?? '0')).toBe(true);
    expect(await receiveAll(service, 'f.fifo')).toHaveLength(1);
  });
});

describe('high-throughput FIFO', () => {
  const highThroughput = { FifoThroughputLimit: 'perMessageGroupId', DeduplicationScope: 'messageGroup' };

  function groupsInPartition(partition: number, count: number, partitions = 8): string[] {
    const groups: string[] = [];
    for (let i = 0; groups.length < count; i++)
      if (partitionOfGroup(`g${i}`, partitions) === partition) groups.push(`g${i}`);
    return groups;
  }

  it('with a hot partition 0, a message in another partition is still delivered within a few receives (trap 14)', async () => {
    const { service } = await fifo(highThroughput);
    const hot = groupsInPartition(0, 100);
    for (let i = 0; i < 10; i++) {
      await service.sendMessages(
        'f.fifo',
        hot.slice(i * 10, i * 10 + 10).map((group) => g(group, `${group}-m`)),
        { senderId: 's' },
      );
    }
    const [cold] = groupsInPartition(5, 1);
    await service.sendMessages('f.fifo', [g(cold ?? '', 'cold')], { senderId: 's' });
    const delivered: string[] = [];
    for (let i = 0; i < 8; i++)
      delivered.push(...(await service.receiveMessages('f.fifo', { maxMessages: 10 })).map((m) => m.body));
    expect(delivered).toContain('cold');
  });

  it('handles carry their partition; a handle with a partition out of range or of the other shape is invalid (trap 14)', async () => {
    const { service } = await fifo(highThroughput);
    await service.sendMessages('f.fifo', [g('a', '1')], { senderId: 's' });
    const [message] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
    const forged = [
      encodeReceiptHandle({
        version: 2,
        partition: 8,
        generation: 1,
        queueName: 'f.fifo',
        messageId: message?.messageId ?? '',
        token: 't',
      }),
      encodeReceiptHandle({
        version: 1,
        partition: 0,
        generation: 1,
        queueName: 'f.fifo',
        messageId: message?.messageId ?? '',
        token: 't',
      }),
    ];
    const results = await service.deleteMessages(
      'f.fifo',
      forged.map((receiptHandle, i) => ({ entryId: `f${i}`, receiptHandle })),
    );
    for (const result of results) expect('error' in result && result.error).toBeInstanceOf(ReceiptHandleIsInvalidError);
    expect(
      await service.deleteMessages('f.fifo', [{ entryId: 'real', receiptHandle: message?.receiptHandle ?? '' }]),
    ).toEqual([{ entryId: 'real' }]);
  });
});
