import { describe, expect, it } from 'vitest';
import { deadLetterCauseAttributeName, decodeDeadLetterCauseRecord } from '../../src/base/dead-letter-cause.js';
import {
  InvalidParameterValueError,
  MessageNotInflightError,
  ReceiptHandleIsInvalidError,
} from '../../src/queue/errors.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

/** MoveMessageToDeadLetterQueue, the raftq extension the client library dead-letters with. */

const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const cause = { name: 'OrderInvalid', code: 'E_ORDER', message: 'the order has no lines' };

async function withDeadLetterQueue(options: { fifo?: boolean; visibilityTimeoutSeconds?: number } = {}) {
  const harness = makeHarness();
  const suffix = options.fifo === true ? '.fifo' : '';
  const fifoAttributes: Record<string, string> =
    options.fifo === true ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {};
  const source = `orders${suffix}`;
  const dlq = `orders-dlq${suffix}`;
  await harness.service.createQueue({ name: dlq, attributes: fifoAttributes, tags: {} });
  await harness.service.createQueue({
    name: source,
    attributes: {
      ...fifoAttributes,
      VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn(dlq), maxReceiveCount: 5 }),
    },
    tags: {},
  });
  return { ...harness, source, dlq };
}

describe('MoveMessageToDeadLetterQueue', () => {
  it('moves the held message to the dead-letter queue in one commit, with its id, body, source ARN and cause', async () => {
    const { service, source, dlq, executor } = await withDeadLetterQueue();
    const messageId = await sendOne(service, source, 'poison', {
      messageAttributes: { k: { dataType: 'String', stringValue: 'v' } },
    });
    const [received] = await service.receiveMessages(source, { maxMessages: 1 });
    const commits = executor.commits.length;
    const result = await service.moveMessageToDeadLetterQueue(source, {
      receiptHandle: received!.receiptHandle,
      cause,
    });
    expect(executor.commits.length).toBe(commits + 1);
    expect(result).toEqual({ messageId, deadLetterTargetArn: arn(dlq) });

    expect(
      await service.getQueueAttributes(source, [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
      ]),
    ).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
    const [copy] = await service.receiveMessages(dlq, { maxMessages: 1 });
    expect(copy?.messageId).toBe(messageId);
    expect(copy?.body).toBe('poison');
    expect(copy?.messageAttributes['k']?.stringValue).toBe('v');
    expect(copy?.attributes['DeadLetterQueueSourceArn']).toBe(arn(source));
    const record = decodeDeadLetterCauseRecord(
      copy?.messageAttributes[deadLetterCauseAttributeName]?.stringValue ?? '',
    );
    expect(record).toMatchObject({ cause, receiveCount: 1, sourceQueueArn: arn(source), sourceMessageId: messageId });
  });

  it('records the receive count of the delivery that gave up', async () => {
    const { service, source, dlq } = await withDeadLetterQueue({ visibilityTimeoutSeconds: 0 });
    await sendOne(service, source, 'tried thrice');
    await service.receiveMessages(source, { maxMessages: 1 });
    await service.receiveMessages(source, { maxMessages: 1 });
    const [third] = await service.receiveMessages(source, { maxMessages: 1, visibilityTimeoutSeconds: 30 });
    expect(third?.attributes['ApproximateReceiveCount']).toBe('3');
    await service.moveMessageToDeadLetterQueue(source, { receiptHandle: third!.receiptHandle, cause });
    const [copy] = await service.receiveMessages(dlq, { maxMessages: 1 });
    expect(
      decodeDeadLetterCauseRecord(copy?.messageAttributes[deadLetterCauseAttributeName]?.stringValue ?? '')
        ?.receiveCount,
    ).toBe(3);
  });

  it('refuses a handle whose message was received again since, and moves nothing', async () => {
    const { service, source, dlq } = await withDeadLetterQueue({ visibilityTimeoutSeconds: 0 });
    await sendOne(service, source, 'taken over');
    const [first] = await service.receiveMessages(source, { maxMessages: 1 });
    const [second] = await service.receiveMessages(source, { maxMessages: 1, visibilityTimeoutSeconds: 30 });
    await expect(
      service.moveMessageToDeadLetterQueue(source, { receiptHandle: first!.receiptHandle, cause }),
    ).rejects.toBeInstanceOf(MessageNotInflightError);
    expect(await service.receiveMessages(dlq, { maxMessages: 1 })).toEqual([]);
    await service.deleteMessages(source, [{ entryId: 'd', receiptHandle: second!.receiptHandle }]);
  });

  it('refuses a handle whose visibility timeout has expired: anybody may hold the message now', async () => {
    const { service, source, executor } = await withDeadLetterQueue({ visibilityTimeoutSeconds: 1 });
    await sendOne(service, source, 'expired');
    const [received] = await service.receiveMessages(source, { maxMessages: 1 });
    executor.clock.advanceMs(1_001);
    await expect(
      service.moveMessageToDeadLetterQueue(source, { receiptHandle: received!.receiptHandle, cause }),
    ).rejects.toBeInstanceOf(MessageNotInflightError);
  });

  it('refuses a queue without a RedrivePolicy, a malformed handle and an empty or oversized cause', async () => {
    const { service, source } = await withDeadLetterQueue();
    await service.createQueue({ name: 'plain', attributes: {}, tags: {} });
    await sendOne(service, 'plain', 'nowhere to go');
    const [plain] = await service.receiveMessages('plain', { maxMessages: 1 });
    await expect(
      service.moveMessageToDeadLetterQueue('plain', { receiptHandle: plain!.receiptHandle, cause }),
    ).rejects.toBeInstanceOf(InvalidParameterValueError);
    await expect(
      service.moveMessageToDeadLetterQueue(source, { receiptHandle: 'not-a-handle', cause }),
    ).rejects.toBeInstanceOf(ReceiptHandleIsInvalidError);
    await sendOne(service, source, 'bad causes');
    const [held] = await service.receiveMessages(source, { maxMessages: 1 });
    const receiptHandle = held!.receiptHandle;
    await expect(
      service.moveMessageToDeadLetterQueue(source, { receiptHandle, cause: { name: '', message: 'm' } }),
    ).rejects.toBeInstanceOf(InvalidParameterValueError);
    await expect(
      service.moveMessageToDeadLetterQueue(source, { receiptHandle, cause: { name: 'E', message: 'x'.repeat(1_025) } }),
    ).rejects.toBeInstanceOf(InvalidParameterValueError);
  });

  it('gives a FIFO copy the next sequence number of the dead-letter queue and keeps its group', async () => {
    const { service, source, dlq } = await withDeadLetterQueue({ fifo: true });
    await sendOne(service, dlq, 'already there', { messageGroupId: 'g' });
    await sendOne(service, source, 'poison', { messageGroupId: 'g' });
    const [received] = await service.receiveMessages(source, { maxMessages: 1 });
    await service.moveMessageToDeadLetterQueue(source, { receiptHandle: received!.receiptHandle, cause });
    const inDlq = await service.receiveMessages(dlq, { maxMessages: 10 });
    expect(inDlq.map((m) => m.body)).toEqual(['already there', 'poison']);
    expect(inDlq[1]?.attributes['MessageGroupId']).toBe('g');
    expect(BigInt(inDlq[1]!.attributes['SequenceNumber']!) > BigInt(inDlq[0]!.attributes['SequenceNumber']!)).toBe(
      true,
    );
  });
});
