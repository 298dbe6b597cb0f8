import { describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { GenerationKeys, globalKeys, queueKeys } from '../../src/queue/layout/key-layout.js';
import { prefixRange } from '../../src/storage/key-codec.js';
import { entry, makeHarness, sendOne } from './support/queue-harness.js';

const g = (group: string, dedup: string) =>
  entry(dedup, dedup, { messageGroupId: group, messageDeduplicationId: dedup });

describe('reaper', () => {
  it('clears a purged generation of a live queue and then its tombstone (trap 5)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 3; i++) await sendOne(service, 'q', `m${i}`);
    await service.purgeQueue('q');
    await sendOne(service, 'q', 'live');
    const report = await service.sweepReaper();
    // 3 messages × (data, vis): a send writes no age row (message-store.ts).
    expect(report.tombstonedRowsDeleted).toBe(6);
    expect(report.tombstonesCleared).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
    expect(await executor.liveRows(new GenerationKeys('q', 2).range())).toHaveLength(2);
  });

  it('clears both generations of a queue purged and then deleted before any sweep (traps 5, 6)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.sendMessages('q.fifo', [g('a', '1')], { senderId: 's' });
    await service.purgeQueue('q.fifo');
    await service.sendMessages('q.fifo', [g('a', '2')], { senderId: 's' });
    await service.deleteQueue('q.fifo');
    await service.sweepReaper();
    const queueRows = await executor.liveRows(queueKeys.queuePrefix('q.fifo'));
    // Only the rows that must outlive the queue remain: the generation counter and the FIFO sequence counter.
    expect(queueRows.map((row) => Buffer.from(row.key).toString('latin1'))).toEqual([
      Buffer.from(queueKeys.generation('q.fifo')).toString('latin1'),
      Buffer.from(queueKeys.sequence('q.fifo', 0)).toString('latin1'),
    ]);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
  });

  it('deletes messages past retention with all their index rows, and leaves younger ones', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await sendOne(service, 'q', 'old');
    executor.clock.advanceMs(30_000);
    await sendOne(service, 'q', 'young');
    executor.clock.advanceMs(30_000);
    const report = await service.sweepReaper();
    expect(report.expiredMessagesDeleted).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toHaveLength(2);
  });

  it('says when retention left expired messages behind, so the runtime sweeps again at once, until none are left', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    const budget = raftqLimits.reaperRowsPerQueuePerTickMax.value;
    const count = 2 * budget + 5;
    for (let i = 0; i < count; i += 10) {
      await service.sendMessages(
        'q',
        Array.from({ length: Math.min(10, count - i) }, (_, j) => ({
          entryId: `e${j}`,
          body: 'b',
          messageAttributes: {},
          systemAttributes: {},
        })),
        { senderId: 't' },
      );
    }
    executor.clock.advanceMs(61_000);
    const backlogs: boolean[] = [];
    let deleted = 0;
    for (let sweep = 0; sweep < 3; sweep++) {
      const report = await service.sweepReaper();
      backlogs.push(report.hasExpiredBacklog);
      deleted += report.expiredMessagesDeleted;
    }
    expect(backlogs).toEqual([true, true, false]);
    expect(deleted).toBe(count);
  });

  it('deletes FIFO dedup rows once their 5-minute window is over, across sweeps (trap 5)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.sendMessages('q.fifo', [g('a', '1'), g('b', '2')], { senderId: 's' });
    const dedupRows = async () => executor.liveRows(prefixRange(['q', 'q.fifo', 'g', 1, 'dedup']));
    expect((await service.sweepReaper()).dedupRowsDeleted).toBe(0);
    expect(await dedupRows()).toHaveLength(2);
    executor.clock.advanceMs(300_000);
    expect((await service.sweepReaper()).dedupRowsDeleted).toBe(2);
    expect(await dedupRows()).toEqual([]);
  });

  it('two reapers sweeping at once (a leader change mid-sweep) leave the same clean state as one', async () => {
    const { service, executor, scheduler } = makeHarness();
    const { QueueService } = await import('../../src/queue/queue-service.js');
    const { SeededPrng } = await import('../../src/base/prng.js');
    const newLeader = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(4),
    });
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    for (let i = 0; i < 4; i++)
      await service.sendMessages(
        'q',
        Array.from({ length: 10 }, (_, j) => entry(`e${j}`, 'x')),
        { senderId: 's' },
      );
    await service.purgeQueue('q');
    for (let i = 0; i < 3; i++) await sendOne(service, 'q', `live-${i}`);
    executor.clock.advanceMs(60_000);
    await sendOne(service, 'q', 'young');
    await Promise.all([service.sweepReaper(), newLeader.sweepReaper()]);
    await newLeader.sweepReaper();
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
    expect(await executor.liveRows(new GenerationKeys('q', 2).range())).toHaveLength(2);
  });
});
