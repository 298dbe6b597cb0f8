import { describe, expect, it } from 'vitest';
import { InvalidAttributeValueError } from '../../src/queue/errors.js';
import { queueKeys } from '../../src/queue/layout/key-layout.js';
import { decodeQueueMeta, encodeQueueMeta } from '../../src/queue/layout/queue-meta.js';
import { makeHarness, sendOne, type Harness } from './support/queue-harness.js';

const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const redrive = (target: string, maxReceiveCount: number) =>
  JSON.stringify({ deadLetterTargetArn: arn(target), maxReceiveCount });

async function withRedrive(
  maxReceiveCount = 2,
  type: 'standard' | 'fifo' = 'standard',
): Promise<Harness & { source: string; dlq: string }> {
  const harness = makeHarness();
  const suffix = type === 'fifo' ? '.fifo' : '';
  const fifoAttributes: Record<string, string> =
    type === 'fifo' ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {};
  const source = `source${suffix}`;
  const dlq = `dlq${suffix}`;
  await harness.service.createQueue({ name: dlq, attributes: fifoAttributes, tags: {} });
  await harness.service.createQueue({
    name: source,
    attributes: { ...fifoAttributes, VisibilityTimeout: '0', RedrivePolicy: redrive(dlq, maxReceiveCount) },
    tags: {},
  });
  return { ...harness, source, dlq };
}

describe('dead-letter redrive', () => {
  it('the receive that would exceed maxReceiveCount moves the message to the DLQ with its body, attributes, id and source ARN', async () => {
    const { service, source, dlq, executor } = await withRedrive(2);
    const messageId = await sendOne(service, source, 'poison', {
      messageAttributes: { k: { dataType: 'String', stringValue: 'v' } },
    });
    expect(await service.receiveMessages(source, { maxMessages: 1 })).toHaveLength(1);
    expect(await service.receiveMessages(source, { maxMessages: 1 })).toHaveLength(1);
    const commits = executor.commits.length;
    expect(await service.receiveMessages(source, { maxMessages: 1 })).toEqual([]);
    expect(executor.commits.length).toBe(commits + 1);
    const [moved] = await service.receiveMessages(dlq, { maxMessages: 1 });
    expect(moved?.messageId).toBe(messageId);
    expect(moved?.body).toBe('poison');
    expect(moved?.messageAttributes['k']?.stringValue).toBe('v');
    expect(moved?.attributes['DeadLetterQueueSourceArn']).toBe(arn(source));
    expect(moved?.attributes['ApproximateReceiveCount']).toBe('1');
  });

  it('a FIFO dead-letter copy gets the next DLQ sequence number, above earlier ones and below later sends (trap 9)', async () => {
    const { service, source, dlq } = await withRedrive(1, 'fifo');
    const direct = await service.sendMessages(
      dlq,
      [{ entryId: 'a', body: 'direct', messageGroupId: 'g', messageAttributes: {}, systemAttributes: {} }],
      { senderId: 's' },
    );
    await service.sendMessages(
      source,
      [{ entryId: 'b', body: 'poison', messageGroupId: 'g', messageAttributes: {}, systemAttributes: {} }],
      { senderId: 's' },
    );
    const [firstReceive] = await service.receiveMessages(source, { maxMessages: 1 });
    expect(firstReceive?.body).toBe('poison');
    expect(await service.receiveMessages(source, { maxMessages: 1 })).toEqual([]);
    const later = await service.sendMessages(
      dlq,
      [{ entryId: 'c', body: 'later', messageGroupId: 'g', messageAttributes: {}, systemAttributes: {} }],
      { senderId: 's' },
    );
    const inDlq = await service.receiveMessages(dlq, { maxMessages: 10 });
    expect(inDlq.map((m) => m.body)).toEqual(['direct', 'poison', 'later']);
    const sequences = inDlq.map((m) => BigInt(m.attributes['SequenceNumber'] ?? '0'));
    expect(sequences[0]).toBe(BigInt(('sequenceNumber' in direct[0]! && direct[0].sequenceNumber) || '0'));
    expect(sequences[1]! > sequences[0]! && sequences[2]! > sequences[1]!).toBe(true);
    expect(sequences[2]).toBe(BigInt(('sequenceNumber' in later[0]! && later[0].sequenceNumber) || '0'));
  });

  it('a RedrivePolicy naming the queue itself, a queue of the other type, a missing queue or a denying queue is refused (trap 9)', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'std', attributes: {}, tags: {} });
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.createQueue({
      name: 'closed',
      attributes: { RedriveAllowPolicy: '{"redrivePermission":"denyAll"}' },
      tags: {},
    });
    await expect(service.setQueueAttributes('std', { RedrivePolicy: redrive('std', 3) })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await expect(service.setQueueAttributes('std', { RedrivePolicy: redrive('f.fifo', 3) })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await expect(service.setQueueAttributes('f.fifo', { RedrivePolicy: redrive('std', 3) })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await expect(service.setQueueAttributes('std', { RedrivePolicy: redrive('missing', 3) })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await expect(service.setQueueAttributes('std', { RedrivePolicy: redrive('closed', 3) })).rejects.toBeInstanceOf(
      InvalidAttributeValueError,
    );
    await expect(
      service.createQueue({ name: 'self', attributes: { RedrivePolicy: redrive('self', 3) }, tags: {} }),
    ).rejects.toBeInstanceOf(InvalidAttributeValueError);
  });

  it('a move to a DLQ that changed type after the policy was set is refused at move time; the message stays deliverable (trap 9)', async () => {
    const { service, source, dlq, executor, warnings } = await withRedrive(1);
    // Rewrite the DLQ's meta as FIFO: the API cannot do this (names fix the type), state corruption or a future rename could.
    const view = await executor.readView();
    const meta = decodeQueueMeta((await view.get(queueKeys.meta(dlq)))!);
    const { config: _config, ...record } = meta;
    await executor.commit({
      txnId: 'retype',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [
        {
          kind: 'put',
          key: queueKeys.meta(dlq),
          value: encodeQueueMeta({ ...record, attributes: { ...record.attributes, FifoQueue: 'true' } }),
        },
      ],
    });
    await sendOne(service, source, 'stays');
    await service.receiveMessages(source, { maxMessages: 1 });
    const [again] = await service.receiveMessages(source, { maxMessages: 1 });
    expect(again?.body).toBe('stays');
    expect(service.redriveSkippedCount).toBe(1);
    expect(warnings[0]?.message).toMatch(/dead-letter move skipped/);
  });

  it('a DLQ deleted after the policy was set never wedges its source: messages keep flowing and the skip is counted (trap 17)', async () => {
    const { service, source, dlq } = await withRedrive(1);
    await sendOne(service, source, 'poison');
    await service.receiveMessages(source, { maxMessages: 1 });
    await service.deleteQueue(dlq);
    await sendOne(service, source, 'healthy');
    const bodies = (await service.receiveMessages(source, { maxMessages: 10, visibilityTimeoutSeconds: 30 }))
      .map((m) => m.body)
      .sort();
    expect(bodies).toEqual(['healthy', 'poison']);
    expect(service.redriveSkippedCount).toBeGreaterThanOrEqual(1);
  });

  it('ListDeadLetterSourceQueues follows policies as they are set, removed and their queues deleted', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'dlq', attributes: {}, tags: {} });
    for (const name of ['s1', 's2', 's3'])
      await service.createQueue({ name, attributes: { RedrivePolicy: redrive('dlq', 5) }, tags: {} });
    const page = await service.listDeadLetterSourceQueues('dlq', { maxResults: 2 });
    expect(page.names).toEqual(['s1', 's2']);
    const rest = await service.listDeadLetterSourceQueues('dlq', {
      maxResults: 2,
      ...(page.nextToken !== undefined ? { nextToken: page.nextToken } : {}),
    });
    expect(rest.names).toEqual(['s3']);
    await service.setQueueAttributes('s1', { RedrivePolicy: '' });
    await service.deleteQueue('s2');
    expect((await service.listDeadLetterSourceQueues('dlq', {})).names).toEqual(['s3']);
  });
});
