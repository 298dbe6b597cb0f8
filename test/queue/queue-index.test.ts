/**
 * Receives take their candidates from the node's in-memory queue index (src/queue/index), which
 * mirrors the vis, state and group rows as they are applied. These tests stage the writes that
 * could slip past the index, and show what the index changes for a receiver: enqueue order,
 * expired messages that no longer hide live ones, groups taken in the order they became available.
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { decodeMessageRecord } from '../../src/queue/message-record.js';
import { encodeVisibilityState } from '../../src/queue/layout/vis-row.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

const encoder = new TextEncoder();

describe('the queue index', () => {
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

  it("a message sent by another node between a receive's view and its look at the index is delivered by the next receive", async () => {
    const { service, executor, scheduler } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const slowNode = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(3),
    });
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

  it('rows that arrive without an applied-write notice (a snapshot install) are found once an index that offers nothing ages out', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'seen');
    executor.clock.advanceMs(5_000);
    expect(await service.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 })).toHaveLength(1);
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    executor.clock.setMs(executor.nowMs() - 3_000);
    executor.silentCommitsCount = 1;
    await sendOne(service, 'q', 'arrived silently');
    executor.clock.advanceMs(3_000 + 10_001);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(['arrived silently']);
  });

  it('a standard message whose visibility lapsed is delivered before messages sent after it (enqueue order, as on SQS)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '30' }, tags: {} });
    await sendOne(service, 'q', 'first');
    executor.clock.advanceMs(1_000);
    expect((await service.receiveMessages('q', { maxMessages: 1 })).map((m) => m.body)).toEqual(['first']);
    for (const body of ['second', 'third']) {
      executor.clock.advanceMs(1_000);
      await sendOne(service, 'q', body);
    }
    executor.clock.advanceMs(30_000);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('expired messages at the head of a queue do not hide live ones, and are not counted as visible', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    // More expired messages than one receive may examine (raftqLimits.receiveScanRowsMax).
    for (let i = 0; i < 150; i++) {
      await service.sendMessages(
        'q',
        Array.from({ length: 10 }, (_, j) => ({
          entryId: `e${j}`,
          body: `old ${i * 10 + j}`,
          messageAttributes: {},
          systemAttributes: {},
        })),
        { senderId: 't' },
      );
    }
    executor.clock.advanceMs(63_000);
    for (let i = 0; i < 20; i++) await sendOne(service, 'q', `fresh ${i}`);
    const attributes = await service.getQueueAttributes('q', ['ApproximateNumberOfMessages']);
    expect(attributes['ApproximateNumberOfMessages']).toBe('20');
    const first = await service.receiveMessages('q', { maxMessages: 10 });
    expect(first.map((m) => m.body)).toEqual(Array.from({ length: 10 }, (_, i) => `fresh ${i}`));
    const second = await service.receiveMessages('q', { maxMessages: 10 });
    expect(second.map((m) => m.body)).toEqual(Array.from({ length: 10 }, (_, i) => `fresh ${i + 10}`));
  });

  it('an index entry whose message is gone (its removal never heard) is dropped, and the messages behind it are delivered', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const goneId = await sendOne(service, 'q', 'gone');
    await sendOne(service, 'q', 'kept');
    executor.clock.advanceMs(1_000);
    // Builds the index with both messages, then removes the first one's data row silently.
    expect(await service.getQueueAttributes('q', ['ApproximateNumberOfMessages'])).toEqual({
      ApproximateNumberOfMessages: '2',
    });
    expect(await service.receiveMessages('q', { maxMessages: 1, visibilityTimeoutSeconds: 0 })).toHaveLength(1);
    const keys = new GenerationKeys('q', 1);
    const view = await executor.readView({ linearizable: true });
    executor.silentCommitsCount = 1;
    await executor.commit({
      txnId: 'silent-delete',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [{ kind: 'delete', key: keys.data(0, goneId) }],
    });
    view.release();
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(['kept']);
  });

  it('a message whose state row is of the older layout (its vis row moved with each receive) is received, changed and deleted without leaving rows', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '30' }, tags: {} });
    const id = await sendOne(service, 'q', 'older');
    const sentAtMs = executor.nowMs();
    const keys = new GenerationKeys('q', 1);
    // What an older node's receive left: a JSON state row, and the vis row moved to its deadline.
    const [data] = await executor.liveRows(keys.familyRange('data'));
    const [vis] = await executor.liveRows(keys.familyRange('vis'));
    expect(data).toBeDefined();
    const { order } = decodeMessageRecord(data?.value ?? new Uint8Array());
    const movedAtMs = sentAtMs + 5_000;
    const view = await executor.readView({ linearizable: true });
    await executor.commit({
      txnId: 'older-receive',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [
        { kind: 'delete', key: vis?.key ?? new Uint8Array() },
        { kind: 'put', key: keys.visibility(0, movedAtMs, order, id), value: encodeVisibilityState('inflight') },
        {
          kind: 'put',
          key: keys.receiveState(0, id),
          value: encoder.encode(JSON.stringify({ v: movedAtMs, n: 1, f: sentAtMs, c: sentAtMs, t: 'old-token' })),
        },
      ],
    });
    view.release();
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toEqual([]);
    executor.clock.advanceMs(5_000);
    const [again] = await service.receiveMessages('q', { maxMessages: 1 });
    expect(again?.attributes['ApproximateReceiveCount']).toBe('2');
    // The vis row is back where the send put it.
    expect(
      (await executor.liveRows(keys.familyRange('vis'))).map((row) => Buffer.from(row.key).toString('hex')),
    ).toEqual([Buffer.from(keys.visibility(0, sentAtMs, order, id)).toString('hex')]);
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: again?.receiptHandle ?? '' }]);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });

  it('FIFO: a group whose head was received and came back goes behind the groups that were waiting', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({
      name: 'q.fifo',
      attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true', VisibilityTimeout: '30' },
      tags: {},
    });
    for (const [group, bodies] of [
      ['g1', ['a1', 'a2', 'a3', 'a4']],
      ['g2', ['b1']],
      ['g3', ['c1']],
    ] as const) {
      for (const body of bodies) await sendOne(service, 'q.fifo', body, { messageGroupId: group });
    }
    executor.clock.advanceMs(1_000);
    const [head] = await service.receiveMessages('q.fifo', { maxMessages: 1 });
    expect(head?.body).toBe('a1');
    await service.changeMessageVisibility('q.fifo', [
      { entryId: 'c', receiptHandle: head?.receiptHandle ?? '', visibilityTimeoutSeconds: 0 },
    ]);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [message] = await service.receiveMessages('q.fifo', { maxMessages: 1 });
      order.push(message?.body ?? '(none)');
    }
    expect(order).toEqual(['b1', 'c1', 'a1']);
  });
});
