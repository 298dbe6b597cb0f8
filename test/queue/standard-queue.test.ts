import { describe, expect, it } from 'vitest';
import {
  InvalidParameterValueError,
  MessageNotInflightError,
  MessageTooLongError,
  OverLimitError,
  QueueDoesNotExistError,
  ReceiptHandleIsInvalidError,
} from '../../src/queue/errors.js';
import { entry, makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

async function withQueue(attributes: Record<string, string> = {}, options: { inFlightMessagesMax?: number } = {}) {
  const harness = makeHarness(options);
  await harness.service.createQueue({ name: 'jobs', attributes, tags: {} });
  return harness;
}

describe('standard queue messages', () => {
  it('a sent message is received once with its body, attributes and system attributes, then deleted', async () => {
    const { service, executor } = await withQueue();
    const sentAtMs = executor.nowMs();
    const messageId = await sendOne(service, 'jobs', 'hello', {
      messageAttributes: {
        colour: { dataType: 'String', stringValue: 'blue' },
        blob: { dataType: 'Binary', binaryValue: Uint8Array.of(0, 1, 2) },
      },
      systemAttributes: { AWSTraceHeader: { dataType: 'String', stringValue: 'Root=1-abc' } },
    });
    executor.clock.advanceMs(5);
    const [message, ...rest] = await service.receiveMessages('jobs', { maxMessages: 10 });
    expect(rest).toEqual([]);
    expect(message?.messageId).toBe(messageId);
    expect(message?.body).toBe('hello');
    expect(message?.messageAttributes['colour']).toEqual({ dataType: 'String', stringValue: 'blue' });
    expect(Array.from(message?.messageAttributes['blob']?.binaryValue ?? [])).toEqual([0, 1, 2]);
    expect(message?.attributes).toMatchObject({
      SentTimestamp: String(sentAtMs),
      ApproximateReceiveCount: '1',
      ApproximateFirstReceiveTimestamp: String(sentAtMs + 5),
      SenderId: 'tester',
      AWSTraceHeader: 'Root=1-abc',
    });
    expect(await service.receiveMessages('jobs', { maxMessages: 10 })).toEqual([]);
    const deleted = await service.deleteMessages('jobs', [
      { entryId: 'd', receiptHandle: message?.receiptHandle ?? '' },
    ]);
    expect(deleted).toEqual([{ entryId: 'd' }]);
    executor.clock.advanceMs(60_000);
    expect(await service.receiveMessages('jobs', { maxMessages: 10 })).toEqual([]);
  });

  it('a message whose visibility timeout expires is delivered again with a higher receive count and a new handle', async () => {
    const { service, executor } = await withQueue({ VisibilityTimeout: '10' });
    await sendOne(service, 'jobs', 'again');
    const [first] = await service.receiveMessages('jobs', { maxMessages: 1 });
    executor.clock.advanceMs(9_999);
    expect(await service.receiveMessages('jobs', { maxMessages: 1 })).toEqual([]);
    executor.clock.advanceMs(1);
    const [second] = await service.receiveMessages('jobs', { maxMessages: 1 });
    expect(second?.attributes['ApproximateReceiveCount']).toBe('2');
    expect(second?.attributes['ApproximateFirstReceiveTimestamp']).toBe(
      first?.attributes['ApproximateFirstReceiveTimestamp'],
    );
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
  });

  it('deleting with a stale handle of the live generation succeeds and leaves the message in flight', async () => {
    const { service, executor } = await withQueue({ VisibilityTimeout: '10' });
    await sendOne(service, 'jobs', 'stale');
    const [first] = await service.receiveMessages('jobs', { maxMessages: 1 });
    executor.clock.advanceMs(10_000);
    const [second] = await service.receiveMessages('jobs', { maxMessages: 1 });
    expect(await service.deleteMessages('jobs', [{ entryId: 'a', receiptHandle: first?.receiptHandle ?? '' }])).toEqual(
      [{ entryId: 'a' }],
    );
    executor.clock.advanceMs(10_000);
    const [third] = await service.receiveMessages('jobs', { maxMessages: 1 });
    expect(third?.messageId).toBe(second?.messageId);
  });

  it('a receipt handle of another queue, of a purged generation, or of no format at all is ReceiptHandleIsInvalid', async () => {
    const { service, executor } = await withQueue();
    await service.createQueue({ name: 'other', attributes: {}, tags: {} });
    await sendOne(service, 'other', 'x');
    const [fromOther] = await service.receiveMessages('other', { maxMessages: 1 });
    await sendOne(service, 'jobs', 'y');
    const [fromJobs] = await service.receiveMessages('jobs', { maxMessages: 1 });
    await service.purgeQueue('jobs');
    executor.clock.advanceMs(1);
    const results = await service.deleteMessages('jobs', [
      { entryId: 'other', receiptHandle: fromOther?.receiptHandle ?? '' },
      { entryId: 'purged', receiptHandle: fromJobs?.receiptHandle ?? '' },
      { entryId: 'garbage', receiptHandle: 'not-a-handle' },
    ]);
    for (const result of results) {
      expect('error' in result && result.error).toBeInstanceOf(ReceiptHandleIsInvalidError);
    }
  });

  it('a DeleteMessageBatch judges each entry on its own: current, stale, repeated and malformed handles together', async () => {
    const { service, executor } = await withQueue({ VisibilityTimeout: '10' });
    for (const body of ['one', 'two', 'three']) await sendOne(service, 'jobs', body);
    const firstReceive = await service.receiveMessages('jobs', { maxMessages: 3 });
    const byBody = new Map(firstReceive.map((message) => [message.body, message]));
    executor.clock.advanceMs(10_000);
    // 'two' is received again: its first handle is stale (a successful no-op, as on AWS).
    const again = await service.receiveMessages('jobs', { maxMessages: 3 });
    const twoAgain = again.find((message) => message.body === 'two');
    const handle = (body: string): string => byBody.get(body)?.receiptHandle ?? '';
    const results = await service.deleteMessages('jobs', [
      { entryId: 'one', receiptHandle: again.find((m) => m.body === 'one')?.receiptHandle ?? '' },
      { entryId: 'two-stale', receiptHandle: handle('two') },
      { entryId: 'garbage', receiptHandle: 'not-a-handle' },
      { entryId: 'two-current', receiptHandle: twoAgain?.receiptHandle ?? '' },
      { entryId: 'two-twice', receiptHandle: twoAgain?.receiptHandle ?? '' },
    ]);
    expect(
      results.map((result) => ('error' in result ? [result.entryId, result.error.constructor.name] : result.entryId)),
    ).toEqual(['one', 'two-stale', ['garbage', 'ReceiptHandleIsInvalidError'], 'two-current', 'two-twice']);
    // 'one' and 'two' are gone; 'three', whose handle no entry named, comes back when its timeout ends.
    executor.clock.advanceMs(10_000);
    expect((await receiveAll(service, 'jobs')).map((message) => message.body)).toEqual(['three']);
  });

  it('ChangeMessageVisibility extends a message in flight and, as AWS, hides again one whose visibility expired', async () => {
    const { service, executor } = await withQueue({ VisibilityTimeout: '10' });
    await sendOne(service, 'jobs', 'cmv');
    const [message] = await service.receiveMessages('jobs', { maxMessages: 1 });
    const handle = message?.receiptHandle ?? '';
    expect(
      await service.changeMessageVisibility('jobs', [
        { entryId: 'a', receiptHandle: handle, visibilityTimeoutSeconds: 100 },
      ]),
    ).toEqual([{ entryId: 'a' }]);
    executor.clock.advanceMs(50_000);
    expect(await service.receiveMessages('jobs', { maxMessages: 1 })).toEqual([]);
    executor.clock.advanceMs(50_000);
    const [expired] = await service.changeMessageVisibility('jobs', [
      { entryId: 'b', receiptHandle: handle, visibilityTimeoutSeconds: 5 },
    ]);
    expect(expired).toEqual({ entryId: 'b' });
    expect(await service.receiveMessages('jobs', { maxMessages: 1 })).toEqual([]);
    executor.clock.advanceMs(5_000);
    const [again] = await service.receiveMessages('jobs', { maxMessages: 1 });
    const [zero] = await service.changeMessageVisibility('jobs', [
      { entryId: 'c', receiptHandle: again?.receiptHandle ?? '', visibilityTimeoutSeconds: 0 },
    ]);
    expect(zero).toEqual({ entryId: 'c' });
    expect((await service.receiveMessages('jobs', { maxMessages: 1 })).map((m) => m.messageId)).toEqual([
      again?.messageId,
    ]);
  });

  it('queue and message delays hide a message until its time', async () => {
    const { service, executor } = await withQueue({ DelaySeconds: '5' });
    await sendOne(service, 'jobs', 'queue-delay');
    await sendOne(service, 'jobs', 'message-delay', { delaySeconds: 20 });
    await sendOne(service, 'jobs', 'no-delay', { delaySeconds: 0 });
    expect((await receiveAll(service, 'jobs')).map((m) => m.body)).toEqual(['no-delay']);
    executor.clock.advanceMs(5_000);
    expect((await receiveAll(service, 'jobs')).map((m) => m.body)).toEqual(['queue-delay']);
    executor.clock.advanceMs(15_000);
    expect((await receiveAll(service, 'jobs')).map((m) => m.body)).toEqual(['message-delay']);
  });

  it('a message past its retention period is never delivered, though no reaper has run (trap 13)', async () => {
    const { service, executor } = await withQueue({ MessageRetentionPeriod: '60' });
    await sendOne(service, 'jobs', 'old');
    executor.clock.advanceMs(59_999);
    await sendOne(service, 'jobs', 'young');
    executor.clock.advanceMs(1);
    expect((await receiveAll(service, 'jobs')).map((m) => m.body)).toEqual(['young']);
  });

  it('one receive claims up to ten messages in a single transaction', async () => {
    const { service, executor } = await withQueue();
    await service.sendMessages(
      'jobs',
      Array.from({ length: 10 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );
    const commitsBefore = executor.commits.length;
    const messages = await service.receiveMessages('jobs', { maxMessages: 10 });
    expect(messages).toHaveLength(10);
    expect(new Set(messages.map((m) => m.messageId)).size).toBe(10);
    expect(executor.commits.length - commitsBefore).toBe(1);
  });

  it('a receive looks past hundreds of undeliverable rows over several pages to find a deliverable message (trap 11)', async () => {
    const { service, executor } = await withQueue({ MessageRetentionPeriod: '60' });
    const expired = Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 'expired'));
    for (let batch = 0; batch < 30; batch++) await service.sendMessages('jobs', expired, { senderId: 's' });
    executor.clock.advanceMs(60_000);
    await sendOne(service, 'jobs', 'deliverable');
    const messages = await service.receiveMessages('jobs', { maxMessages: 10 });
    expect(messages.map((m) => m.body)).toEqual(['deliverable']);
  });

  it('a body plus attributes larger than MaximumMessageSize fails that entry only', async () => {
    const { service } = await withQueue({ MaximumMessageSize: '1024' });
    const results = await service.sendMessages(
      'jobs',
      [
        entry('ok', 'x'.repeat(1000)),
        entry('big', 'x'.repeat(1000), {
          messageAttributes: { attr: { dataType: 'String', stringValue: 'y'.repeat(30) } },
        }),
      ],
      { senderId: 's' },
    );
    expect(results[0]).toMatchObject({ entryId: 'ok' });
    const big = results[1];
    expect(big !== undefined && 'error' in big && big.error).toBeInstanceOf(MessageTooLongError);
  });

  it('a MessageDeduplicationId on a standard queue is refused, a MessageGroupId is kept', async () => {
    const { service } = await withQueue();
    const [dedup] = await service.sendMessages('jobs', [entry('a', 'x', { messageDeduplicationId: 'd' })], {
      senderId: 's',
    });
    expect(dedup !== undefined && 'error' in dedup && dedup.error).toBeInstanceOf(InvalidParameterValueError);
    await sendOne(service, 'jobs', 'grouped', { messageGroupId: 'g1' });
    const [message] = await service.receiveMessages('jobs', { maxMessages: 1 });
    expect(message?.attributes['MessageGroupId']).toBe('g1');
  });

  it('a receive is refused with OverLimit once the in-flight limit is reached', async () => {
    const { service, executor } = await withQueue({}, { inFlightMessagesMax: 3 });
    await service.sendMessages(
      'jobs',
      Array.from({ length: 5 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );
    expect(await service.receiveMessages('jobs', { maxMessages: 3 })).toHaveLength(3);
    executor.clock.advanceMs(2_000);
    await expect(service.receiveMessages('jobs', { maxMessages: 1 })).rejects.toBeInstanceOf(OverLimitError);
  });

  it('message operations on a missing queue throw QueueDoesNotExist instead of answering empty (trap 12)', async () => {
    const { service } = makeHarness();
    await expect(service.receiveMessages('missing', { maxMessages: 1 })).rejects.toBeInstanceOf(QueueDoesNotExistError);
    await expect(service.sendMessages('missing', [entry('a', 'b')], { senderId: 's' })).rejects.toBeInstanceOf(
      QueueDoesNotExistError,
    );
    await expect(service.deleteMessages('missing', [{ entryId: 'a', receiptHandle: 'x' }])).rejects.toBeInstanceOf(
      QueueDoesNotExistError,
    );
    await expect(service.getQueueAttributes('missing', ['All'])).rejects.toBeInstanceOf(QueueDoesNotExistError);
  });
});
