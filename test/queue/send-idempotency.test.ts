import { describe, expect, it } from 'vitest';
import { entry, makeHarness, receiveAll } from './support/queue-harness.js';

/**
 * A send that runs twice with the same message ids and idempotency key (a follower forwarded it
 * again after the leader's answer was lost) enqueues each message once and answers the same ids.
 */
describe('a send repeated under its idempotency key', () => {
  it('enqueues a standard batch once', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const entries = [entry('a', 'one'), entry('b', 'two')];
    const context = { senderId: 'tester', messageIds: ['m-1', 'm-2'], idempotencyKey: 'op-1' };
    const first = await service.sendMessages('q', entries, context);
    const second = await service.sendMessages('q', entries, context);
    expect(second).toEqual(first);
    expect(first).toEqual([
      { entryId: 'a', messageId: 'm-1' },
      { entryId: 'b', messageId: 'm-2' },
    ]);
    const received = await receiveAll(service, 'q');
    expect(received.map((m) => m.messageId).sort()).toEqual(['m-1', 'm-2']);
    const counts = await service.getQueueAttributes('q', [
      'ApproximateNumberOfMessages',
      'ApproximateNumberOfMessagesNotVisible',
    ]);
    expect(counts).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '2' });
  });

  it('answers a repeated FIFO send with the first run ids and sequence numbers', async () => {
    const { service } = makeHarness();
    await service.createQueue({
      name: 'q.fifo',
      attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      tags: {},
    });
    const entries = [entry('a', 'one', { messageGroupId: 'g' })];
    const context = { senderId: 'tester', messageIds: ['m-1'], idempotencyKey: 'op-2' };
    const first = await service.sendMessages('q.fifo', entries, context);
    const second = await service.sendMessages('q.fifo', entries, context);
    expect(second).toEqual(first);
    expect(await receiveAll(service, 'q.fifo')).toHaveLength(1);
  });

  it('still sends twice without a key (each send is its own)', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await service.sendMessages('q', [entry('a', 'one')], { senderId: 'tester' });
    await service.sendMessages('q', [entry('a', 'one')], { senderId: 'tester' });
    expect(await receiveAll(service, 'q')).toHaveLength(2);
  });

  it('refuses message ids that do not match the entries', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await expect(
      service.sendMessages('q', [entry('a', 'one')], { senderId: 'tester', messageIds: [], idempotencyKey: 'k' }),
    ).rejects.toThrow(/message ids/);
  });
});
