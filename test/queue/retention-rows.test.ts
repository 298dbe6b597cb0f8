/**
 * Retention without an age row per message (src/queue/message-store.ts): a send writes its data
 * and vis rows only, and the reaper finds expired messages through their vis rows; a message
 * moved in long after its retention started keeps an age row, so it is still removed on time;
 * a message an older version stored (JSON data row and an age row) is removed with every row.
 */
import { describe, expect, it } from 'vitest';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { encodeLegacyMessageRecord } from '../../src/queue/layout/message-data-row.js';
import { decodeMessageRecord } from '../../src/queue/message-record.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;

describe('retention rows', () => {
  it('a delayed message (no age row) expires and is reaped through its vis row, within the longest delay of its expiry', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await sendOne(service, 'q', 'delayed', { delaySeconds: 900 });
    const keys = new GenerationKeys('q', 1);
    expect(await executor.liveRows(keys.familyRange('age'))).toEqual([]);
    executor.clock.advanceMs(61_000);
    // Expired (never delivered), though not yet reaped: its vis row is still ahead of the cutoff.
    expect((await service.sweepReaper()).expiredMessagesDeleted).toBe(0);
    executor.clock.advanceMs(900_000);
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    expect((await service.sweepReaper()).expiredMessagesDeleted).toBe(1);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });

  it('a message moved to a dead-letter queue long after it was sent keeps an age row and is reaped when its retention ends', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'dlq', attributes: { MessageRetentionPeriod: '1200' }, tags: {} });
    await service.createQueue({
      name: 'src',
      attributes: {
        VisibilityTimeout: '0',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn('dlq'), maxReceiveCount: 1 }),
      },
      tags: {},
    });
    await sendOne(service, 'src', 'poison');
    executor.clock.advanceMs(1_000_000);
    expect(await service.receiveMessages('src', { maxMessages: 1 })).toHaveLength(1);
    expect(await service.receiveMessages('src', { maxMessages: 1 })).toEqual([]);
    const dlqKeys = new GenerationKeys('dlq', 1);
    expect(await executor.liveRows(dlqKeys.familyRange('age'))).toHaveLength(1);
    // Its retention (from the original send) ends 200 s after the move; its vis row says the move.
    executor.clock.advanceMs(201_000);
    expect((await service.sweepReaper()).expiredMessagesDeleted).toBe(1);
    expect(await executor.liveRows(dlqKeys.range())).toEqual([]);
  });

  it('a message an older version stored, with a JSON data row and an age row, is reaped with all its rows', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    const id = await sendOne(service, 'q', 'older');
    const keys = new GenerationKeys('q', 1);
    const [data] = await executor.liveRows(keys.familyRange('data'));
    if (data === undefined) throw new Error('no data row');
    const record = decodeMessageRecord(data.value);
    const view = await executor.readView({ linearizable: true });
    await executor.commit({
      txnId: 'older-node-send',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [
        { kind: 'put', key: data.key, value: encodeLegacyMessageRecord(record) },
        { kind: 'put', key: keys.age(0, record.retentionStartMs, id), value: new Uint8Array(0) },
      ],
    });
    view.release();
    executor.clock.advanceMs(61_000);
    const report = await service.sweepReaper();
    expect(report.expiredMessagesDeleted).toBe(1);
    expect(report.expiredRowsDeleted).toBe(3);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });
});
