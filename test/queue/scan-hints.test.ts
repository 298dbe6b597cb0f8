/**
 * Receives start scanning at a per-partition hint instead of visibleAtMs 0, to skip the deleted
 * rows at the head of a busy queue. These tests stage the writes that could slip under a hint.
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

describe('visibility scan hints', () => {
  it('a message stamped by a clock behind the last scan is still delivered', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 5; i++) await sendOne(service, 'q', `m${i}`);
    executor.clock.advanceMs(10_000);
    for (const message of await receiveAll(service, 'q')) {
      await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: message.receiptHandle }]);
    }
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    executor.clock.setMs(executor.nowMs() - 4_000);
    await sendOne(service, 'q', 'from a slow clock');
    executor.clock.advanceMs(4_000);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(['from a slow clock']);
  });

  it('a write applied after a receive took its view but before it raised the hint is not skipped later', async () => {
    const { service, executor, scheduler } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const slowNode = new QueueService({ executor, accountId: '000000000000', region: 'us-east-1', scheduler, prng: new SeededPrng(3) });
    await sendOne(service, 'q', 'seed');
    executor.clock.advanceMs(5_000);
    const [seed] = await service.receiveMessages('q', { maxMessages: 1 });
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: seed?.receiptHandle ?? '' }]);
    executor.afterReadView = async () => {
      executor.afterReadView = undefined;
      const nowMs = executor.nowMs();
      executor.clock.setMs(nowMs - 3_000);
      await sendOne(slowNode, 'q', 'landed mid-scan');
      executor.clock.setMs(nowMs);
    };
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(['landed mid-scan']);
  });

  it('rows that arrive without an applied-write notice (a snapshot install) are found once the hint ages out', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'seen');
    executor.clock.advanceMs(5_000);
    expect(await service.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 })).toHaveLength(1);
    // An empty receive raises the hint to now + 1.
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    executor.clock.setMs(executor.nowMs() - 3_000);
    executor.silentCommitsCount = 1;
    await sendOne(service, 'q', 'arrived silently');
    executor.clock.advanceMs(3_000 + 10_001);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(['arrived silently']);
  });
});
