/**
 * The receive state of a message lives in a small row of its own (receive-state.ts,
 * message-store.ts): a receive or visibility change writes that row and moves the vis row, and
 * never writes the data row with its body again. These tests inspect the committed transactions
 * and the rows left behind.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { classifyStateKey } from '../../src/queue/layout/key-family.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { decodeMessageRecord } from '../../src/queue/message-record.js';
import { encodeVisibilityState } from '../../src/queue/layout/vis-row.js';
import { MessageStore } from '../../src/queue/message-store.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { decodeReceiveState, encodeReceiveState } from '../../src/queue/layout/receive-state.js';
import type { Txn } from '../../src/storage/txn.js';
import { makeHarness, sendOne, type Harness } from './support/queue-harness.js';

const body64KiB = 'x'.repeat(64 * 1024);

function familiesWritten(txn: Txn): string[] {
  return txn.writes.map((write) => `${write.kind} ${classifyStateKey(write.key).family}`);
}

function bytesWritten(txn: Txn): number {
  return txn.writes.reduce(
    (sum, write) => sum + write.key.byteLength + (write.kind === 'put' ? write.value.byteLength : 0),
    0,
  );
}

async function lastCommitOf(harness: Harness, action: () => Promise<unknown>): Promise<Txn> {
  const before = harness.executor.commits.length;
  await action();
  expect(harness.executor.commits.length).toBe(before + 1);
  return harness.executor.commits[before] as Txn;
}

describe('the receive-state row', () => {
  it('a receive of a 64 KiB message writes its state row only: the data and vis rows stay as the send wrote them', async () => {
    const harness = makeHarness();
    const { service } = harness;
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', body64KiB);
    const receive = await lastCommitOf(harness, () => service.receiveMessages('q', { maxMessages: 10 }));
    expect(familiesWritten(receive).sort()).toEqual(['put state']);
    expect(bytesWritten(receive)).toBeLessThan(512);
  });

  it('a visibility change writes the state row only', async () => {
    const harness = makeHarness();
    const { service } = harness;
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', body64KiB);
    const [message] = await service.receiveMessages('q', { maxMessages: 1 });
    const change = await lastCommitOf(harness, () =>
      service.changeMessageVisibility('q', [
        { entryId: 'c', receiptHandle: message?.receiptHandle ?? '', visibilityTimeoutSeconds: 100 },
      ]),
    );
    expect(familiesWritten(change).sort()).toEqual(['put state']);
    expect(bytesWritten(change)).toBeLessThan(512);
  });

  it('a send writes the data row with the initial state and no state row', async () => {
    const harness = makeHarness();
    const { service } = harness;
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const send = await lastCommitOf(harness, () => sendOne(service, 'q', 'hello'));
    expect(familiesWritten(send).sort()).toEqual(['put data', 'put vis']);
  });

  it('the state row overrides the receive state the data row was sent with', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '30' }, tags: {} });
    const id = await sendOne(service, 'q', 'hello');
    const sentAtMs = executor.nowMs();
    executor.clock.advanceMs(1_000);
    const [first] = await service.receiveMessages('q', { maxMessages: 1 });
    executor.clock.advanceMs(31_000);
    const [second] = await service.receiveMessages('q', { maxMessages: 1 });
    expect(second?.attributes['ApproximateReceiveCount']).toBe('2');
    expect(second?.attributes['ApproximateFirstReceiveTimestamp']).toBe(String(sentAtMs + 1_000));

    const keys = new GenerationKeys('q', 1);
    const [dataRow] = await executor.liveRows(keys.familyRange('data'));
    const [stateRow] = await executor.liveRows(keys.familyRange('state'));
    // The data row still holds the state it was sent with; the state row holds the current one.
    expect(decodeMessageRecord(dataRow?.value ?? new Uint8Array()).receiveCount).toBe(0);
    const state = decodeReceiveState(stateRow?.value ?? new Uint8Array()).state;
    expect(state).toMatchObject({
      receiveCount: 2,
      firstReceiveAtMs: sentAtMs + 1_000,
      claimedAtMs: sentAtMs + 32_000,
      visibleAtMs: sentAtMs + 62_000,
    });
    const view = await executor.readView({ linearizable: true });
    const stored = await new MessageStore(keys).read(view, 0, id);
    view.release();
    expect(stored?.hasStateRow).toBe(true);
    expect(stored?.record).toMatchObject({
      body: 'hello',
      receiveCount: 2,
      visibleAtMs: sentAtMs + 62_000,
      receiptToken: state.receiptToken,
    });

    // The first receive's handle is stale: its delete is a no-op; the current one deletes.
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: first?.receiptHandle ?? '' }]);
    expect(await executor.liveRows(keys.familyRange('data'))).toHaveLength(1);
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: second?.receiptHandle ?? '' }]);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });

  it('a delete removes the state row with the data and index rows', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'hello');
    const [message] = await service.receiveMessages('q', { maxMessages: 1 });
    const keys = new GenerationKeys('q', 1);
    expect(await executor.liveRows(keys.familyRange('state'))).toHaveLength(1);
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: message?.receiptHandle ?? '' }]);
    expect(await executor.liveRows(keys.range())).toEqual([]);
  });

  it('a dead-letter move on maxReceiveCount takes the state row along and the copy starts without one', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'dlq', attributes: {}, tags: {} });
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: service.queueArn('dlq'), maxReceiveCount: 1 });
    await service.createQueue({
      name: 'q',
      attributes: { VisibilityTimeout: '5', RedrivePolicy: redrivePolicy },
      tags: {},
    });
    await sendOne(service, 'q', 'poison');
    await service.receiveMessages('q', { maxMessages: 1 });
    executor.clock.advanceMs(6_000);
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toEqual([]);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
    const dlqKeys = new GenerationKeys('dlq', 1);
    expect(await executor.liveRows(dlqKeys.familyRange('data'))).toHaveLength(1);
    expect(await executor.liveRows(dlqKeys.familyRange('state'))).toEqual([]);
    const [copy] = await service.receiveMessages('dlq', { maxMessages: 1 });
    expect(copy?.attributes['ApproximateReceiveCount']).toBe('1');
  });

  it("a move task takes a received dead letter's state row along, and the message returns to its source with a fresh receive state", async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'dlq', attributes: {}, tags: {} });
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: service.queueArn('dlq'), maxReceiveCount: 1 });
    await service.createQueue({
      name: 'src',
      attributes: { VisibilityTimeout: '0', RedrivePolicy: redrivePolicy },
      tags: {},
    });
    await sendOne(service, 'src', 'm');
    await service.receiveMessages('src', { maxMessages: 1 });
    expect(await service.receiveMessages('src', { maxMessages: 1 })).toEqual([]);
    // Received once in the dead-letter queue too: it has a state row there.
    expect(await service.receiveMessages('dlq', { maxMessages: 1, visibilityTimeoutSeconds: 0 })).toHaveLength(1);
    expect(await executor.liveRows(new GenerationKeys('dlq', 1).familyRange('state'))).toHaveLength(1);
    await service.startMessageMoveTask({ sourceArn: service.queueArn('dlq') });
    executor.clock.advanceMs(1_000);
    expect(await service.stepMoveTasks()).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('dlq', 1).range())).toEqual([]);
    // Back in the generation where it once had a state row: that row went with the dead-letter move.
    expect(await executor.liveRows(new GenerationKeys('src', 1).familyRange('state'))).toEqual([]);
    const [back] = await service.receiveMessages('src', { maxMessages: 1, visibilityTimeoutSeconds: 30 });
    expect(back?.attributes['ApproximateReceiveCount']).toBe('1');
  });

  it('a leftover vis row of a message in flight does not deliver it a second time', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '30' }, tags: {} });
    const id = await sendOne(service, 'q', 'held');
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toHaveLength(1);
    const keys = new GenerationKeys('q', 1);
    const view = await executor.readView({ linearizable: true });
    await executor.commit({
      txnId: 'leftover-vis-row',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [{ kind: 'put', key: keys.visibility(0, 1, 0n, id), value: encodeVisibilityState('inflight') }],
    });
    view.release();
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toEqual([]);
  });

  it('the reaper deletes a state row whose data row is gone and keeps those of live messages', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const liveId = await sendOne(service, 'q', 'live');
    await service.receiveMessages('q', { maxMessages: 1 });
    const keys = new GenerationKeys('q', 1);
    const strayKey = keys.receiveState(0, 'gone');
    const view = await executor.readView({ linearizable: true });
    await executor.commit({
      txnId: 'stray-state-row',
      startTsUs: view.ts,
      nowMs: executor.nowMs(),
      readKeys: [],
      writes: [
        {
          kind: 'put',
          key: strayKey,
          value: encodeReceiveState({ visibleAtMs: 1, receiveCount: 1, receiptToken: 't' }),
        },
      ],
    });
    view.release();
    expect(await executor.liveRows(keys.familyRange('state'))).toHaveLength(2);
    const report = await service.sweepReaper();
    expect(report.danglingRowsDeleted).toBe(1);
    const left = await executor.liveRows(keys.familyRange('state'));
    expect(left.map((row) => Buffer.from(row.key).toString('latin1'))).toEqual([
      Buffer.from(keys.receiveState(0, liveId)).toString('latin1'),
    ]);
  });

  it('retention deletes a received message with its state row and the vis row the state row names', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({
      name: 'q',
      attributes: { MessageRetentionPeriod: '60', VisibilityTimeout: '30' },
      tags: {},
    });
    await sendOne(service, 'q', 'old');
    await service.receiveMessages('q', { maxMessages: 1 });
    executor.clock.advanceMs(61_000);
    const report = await service.sweepReaper();
    expect(report.expiredMessagesDeleted).toBe(1);
    // data, state, vis: a send writes no age row.
    expect(report.expiredRowsDeleted).toBe(3);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
  });

  it("a purge leaves the old generation's state rows to the reaper, which clears them with the generation range", async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 3; i++) await sendOne(service, 'q', `m${i}`);
    await service.receiveMessages('q', { maxMessages: 10 });
    const old = new GenerationKeys('q', 1);
    expect(await executor.liveRows(old.familyRange('state'))).toHaveLength(3);
    await service.purgeQueue('q');
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    const report = await service.sweepReaper();
    // 3 messages × (data, state, vis).
    expect(report.tombstonedRowsDeleted).toBe(9);
    expect(await executor.liveRows(old.range())).toEqual([]);
  });

  it("a deleted queue's state rows go with its generation", async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'm');
    await service.receiveMessages('q', { maxMessages: 1 });
    await service.deleteQueue('q');
    await service.sweepReaper();
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
  });

  it('a delete that commits while a receive of the same message is being built makes the receive conflict and come back empty', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '5' }, tags: {} });
    await sendOne(service, 'q', 'm');
    const [held] = await service.receiveMessages('q', { maxMessages: 1 });
    executor.clock.advanceMs(6_000);
    let hasDeleted = false;
    executor.beforeCommit = async () => {
      if (hasDeleted) return;
      hasDeleted = true;
      executor.beforeCommit = undefined;
      // The expired handle still holds the message: nobody has received it again yet.
      await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: held?.receiptHandle ?? '' }]);
    };
    const conflictsBefore = executor.conflicts;
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toEqual([]);
    expect(hasDeleted).toBe(true);
    expect(executor.conflicts).toBe(conflictsBefore + 1);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
  });

  it('two nodes receiving the same message at once deliver it once: the later claim conflicts on the state row', async () => {
    const { service, executor, scheduler } = makeHarness();
    const otherNode = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(2),
    });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'only');
    let rivalCount = -1;
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      rivalCount = (await otherNode.receiveMessages('q', { maxMessages: 1 })).length;
    };
    const mine = await service.receiveMessages('q', { maxMessages: 1 });
    expect(rivalCount).toBe(1);
    expect(mine).toEqual([]);
    const [stateRow] = await executor.liveRows(new GenerationKeys('q', 1).familyRange('state'));
    expect(decodeReceiveState(stateRow?.value ?? new Uint8Array()).state.receiveCount).toBe(1);
  });
});

describe('the receive-state layout', () => {
  it('encodes every field, the same bytes each time, and decodes what it encoded', () => {
    const states = [
      {
        visibleAtMs: 1_765_000_000_123.5,
        receiveCount: 3,
        firstReceiveAtMs: 1_765_000_000_000,
        claimedAtMs: 7,
        receiptToken: '0190c1a2-7b3c-7def-8123-456789abcdef',
      },
      {
        visibleAtMs: 0,
        receiveCount: 0xffffffff,
        firstReceiveAtMs: undefined,
        claimedAtMs: undefined,
        receiptToken: 'tôken-ü',
      },
      {
        visibleAtMs: 42,
        receiveCount: 1,
        firstReceiveAtMs: undefined,
        claimedAtMs: undefined,
        receiptToken: undefined,
      },
    ];
    for (const state of states) {
      const first = Buffer.from(encodeReceiveState(state));
      const second = encodeReceiveState(state);
      expect(Buffer.from(second).equals(first)).toBe(true);
      expect(decodeReceiveState(second)).toEqual({ state, isMovingVisRow: false });
    }
  });
});
