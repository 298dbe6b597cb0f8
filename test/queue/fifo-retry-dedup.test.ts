/**
 * Trap 4 (docs/TRAPS.md) on the FIFO send path: a retry after a conflict derives the deduplication id again from
 * what it reads, instead of reusing the first attempt's.
 */
import { describe, expect, it } from 'vitest';
import { entry, makeHarness, receiveAll } from './support/queue-harness.js';

describe('FIFO sends retried after a conflict', () => {
  it('re-derive the dedup id: content-based deduplication turned off in between makes the send fail (trap 4)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({
      name: 'q.fifo',
      attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      tags: {},
    });
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      await service.setQueueAttributes('q.fifo', { ContentBasedDeduplication: 'false' });
    };
    await expect(
      service.sendMessages('q.fifo', [entry('e', 'body', { messageGroupId: 'g' })], { senderId: 's' }),
    ).rejects.toMatchObject({ code: 'InvalidParameterValue' });
    expect(await receiveAll(service, 'q.fifo')).toEqual([]);
  });
});
