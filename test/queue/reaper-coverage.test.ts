/**
 * What the reaper must find and delete (docs/TRAPS.md, traps 5, 6), within its bounds, fairly, and
 * as transactions that conflict with concurrent queue operations.
 */
import { describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { GenerationKeys, globalKeys, queueKeys } from '../../src/queue/layout/key-layout.js';
import { encodeKey, prefixRange } from '../../src/storage/key-codec.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { entry, makeHarness, sendOne, type Harness } from './support/queue-harness.js';

const rowsMax = raftqLimits.reaperRowsPerQueuePerTickMax.value;
const tombstonedRowsPerTxnMax = raftqLimits.reaperTombstonedRowsPerTxnMax.value;
const tombstonedRowsPerSweepMax = raftqLimits.reaperTombstonedRowsPerSweepMax.value;
const tombstonedBytesPerTxnMax = raftqLimits.reaperTombstonedBytesPerTxnMax.value;
const tombstonedBytesPerSweepMax = raftqLimits.reaperTombstonedBytesPerSweepMax.value;
const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;

async function sendMany(harness: Harness, queue: string, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 10) {
    const batch = Array.from({ length: Math.min(10, count - sent) }, (_, i) => entry(`e${i}`, `m${sent + i}`));
    await harness.service.sendMessages(queue, batch, { senderId: 's' });
  }
}

/** Commits raw writes, as a bug (or an older version of the code) might have left them. */
async function commitRaw(harness: Harness, writes: TxnWrite[]): Promise<void> {
  const view = await harness.executor.readView({ linearizable: true });
  const startTsUs = view.ts;
  view.release();
  const outcome = await harness.executor.commit({
    txnId: `raw-${startTsUs}-${writes.length}`,
    startTsUs,
    nowMs: harness.executor.nowMs(),
    readKeys: [],
    writes,
  });
  expect(outcome.kind).toBe('committed');
}

/** `count` age rows in a generation (values of `valueBytes`), committed raw: many rows without sending as many messages. */
async function putRows(harness: Harness, keys: GenerationKeys, count: number, valueBytes = 0): Promise<void> {
  const nowMs = harness.executor.nowMs();
  const perCommit = valueBytes > 0 ? 32 : 1_000;
  for (let first = 0; first < count; first += perCommit) {
    const writes: TxnWrite[] = [];
    for (let i = first; i < Math.min(count, first + perCommit); i++)
      writes.push({
        kind: 'put',
        key: keys.age(0, nowMs, `m${String(i).padStart(6, '0')}`),
        value: new Uint8Array(valueBytes),
      });
    await commitRaw(harness, writes);
  }
}

describe('reaper coverage', () => {
  it('deletes a message past retention whose visibility keeps being extended, through the by-age index (trap 5)', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await sendOne(service, 'q', 'held');
    const [held] = await service.receiveMessages('q', { maxMessages: 1, visibilityTimeoutSeconds: 30 });
    for (let i = 0; i < 3; i++) {
      executor.clock.advanceMs(20_000);
      const [extended] = await service.changeMessageVisibility('q', [
        { entryId: 'x', receiptHandle: held?.receiptHandle ?? '', visibilityTimeoutSeconds: 600 },
      ]);
      expect(extended).toEqual({ entryId: 'x' });
    }
    // Its vis row is ten minutes ahead; only the age row says it expired.
    const report = await service.sweepReaper();
    expect(report.expiredMessagesDeleted).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
  });

  it('clears a deleted generation a bounded transaction at a time, up to a budget per sweep, says rows are left, and deletes its tombstone only once the range is empty (traps 5, 6)', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'big', attributes: {}, tags: {} });
    const count = tombstonedRowsPerSweepMax + tombstonedRowsPerTxnMax + 7;
    await putRows(harness, new GenerationKeys('big', 1), count);
    await service.deleteQueue('big');
    const generation = new GenerationKeys('big', 1).range();
    const commitsBefore = executor.commits.length;

    const first = await service.sweepReaper();
    expect(first.tombstonedRowsDeleted).toBe(tombstonedRowsPerSweepMax);
    expect(first.tombstonesCleared).toBe(0);
    expect(first.hasTombstonedBacklog).toBe(true);
    // The first transaction assumes large rows and reads few; the next ones read 1,024 small rows.
    const rowsPerCommit = executor.commits.slice(commitsBefore).map((txn) => txn.writes.length);
    expect(rowsPerCommit[0]).toBe(tombstonedBytesPerTxnMax / 65_536);
    expect(Math.max(...rowsPerCommit)).toBe(tombstonedRowsPerTxnMax);
    expect(rowsPerCommit.reduce((sum, rows) => sum + rows, 0)).toBe(tombstonedRowsPerSweepMax);
    expect(await executor.liveRows(generation)).toHaveLength(count - tombstonedRowsPerSweepMax);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toHaveLength(1);

    const second = await service.sweepReaper();
    expect(second.tombstonedRowsDeleted).toBe(count - tombstonedRowsPerSweepMax);
    expect(second.tombstonesCleared).toBe(1);
    expect(second.hasTombstonedBacklog).toBe(false);
    expect(await executor.liveRows(generation)).toEqual([]);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
  });

  it('reads a generation of large rows a few megabytes a transaction and a sweep, whatever its row count', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'large', attributes: {}, tags: {} });
    const rowBytes = 65_536;
    const count = 400;
    await putRows(harness, new GenerationKeys('large', 1), count, rowBytes);
    await service.deleteQueue('large');
    const commitsBefore = executor.commits.length;
    const first = await service.sweepReaper();
    const rowsPerCommit = executor.commits.slice(commitsBefore).map((txn) => txn.writes.length);
    // Each transaction reads about tombstonedBytesPerTxnMax; the sweep stops once it read its bytes.
    for (const rows of rowsPerCommit) expect(rows * rowBytes).toBeLessThanOrEqual(tombstonedBytesPerTxnMax);
    expect(first.tombstonedRowsDeleted).toBeLessThan(count);
    expect(first.tombstonedRowsDeleted * rowBytes).toBeGreaterThanOrEqual(tombstonedBytesPerSweepMax);
    expect(first.tombstonedRowsDeleted * rowBytes).toBeLessThan(tombstonedBytesPerSweepMax + tombstonedBytesPerTxnMax);
    expect(first.hasTombstonedBacklog).toBe(true);
    const second = await service.sweepReaper();
    expect(first.tombstonedRowsDeleted + second.tombstonedRowsDeleted).toBe(count);
    expect(second.tombstonesCleared).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('large', 1).range())).toEqual([]);
  });

  it('shares the sweep budget among tombstoned generations in turn: a small one is cleared beside a huge one', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    for (const name of ['a-huge', 'b-small']) await service.createQueue({ name, attributes: {}, tags: {} });
    await putRows(harness, new GenerationKeys('a-huge', 1), 2 * tombstonedRowsPerSweepMax);
    await sendMany(harness, 'b-small', 5);
    await service.deleteQueue('a-huge');
    await service.purgeQueue('b-small');
    const report = await service.sweepReaper();
    expect(report.tombstonesVisited).toBe(2);
    expect(report.tombstonesCleared).toBe(1);
    expect(report.tombstonedRowsDeleted).toBe(tombstonedRowsPerSweepMax);
    expect(report.hasTombstonedBacklog).toBe(true);
    expect(await executor.liveRows(new GenerationKeys('b-small', 1).range())).toEqual([]);
    expect(await executor.liveRows(new GenerationKeys('a-huge', 1).range())).toHaveLength(
      2 * tombstonedRowsPerSweepMax - (tombstonedRowsPerSweepMax - 10),
    );
  });

  it('leaves a recreated queue of the same name alone while clearing its deleted generation', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendMany(harness, 'q', 5);
    await service.deleteQueue('q');
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendMany(harness, 'q', 3);
    await service.sweepReaper();
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
    expect(await executor.liveRows(new GenerationKeys('q', 2).range())).toHaveLength(6);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
  });

  it('deletes ReceiveRequestAttemptId rows once their 5-minute window is over (trap 5)', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.sendMessages('f.fifo', [entry('a', 'a', { messageGroupId: 'g', messageDeduplicationId: 'a' })], {
      senderId: 's',
    });
    await service.receiveMessages('f.fifo', { maxMessages: 1, receiveRequestAttemptId: 'try-1' });
    const attempts = () => executor.liveRows(prefixRange(['q', 'f.fifo', 'g', 1, 'attempt']));
    expect((await service.sweepReaper()).attemptRowsDeleted).toBe(0);
    expect(await attempts()).toHaveLength(1);
    executor.clock.advanceMs(300_000);
    expect((await service.sweepReaper()).attemptRowsDeleted).toBe(1);
    expect(await attempts()).toEqual([]);
  });

  it('audits a queue again only once reaperAuditIntervalMs has passed, and at the next tick after finding a dangling row', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendOne(service, 'q', 'live');
    const keys = new GenerationKeys('q', 1);
    const ghost = (id: string): TxnWrite => ({
      kind: 'put',
      key: keys.visibility(0, executor.nowMs(), 999n, id),
      value: Uint8Array.of(0x70),
    });
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(0);
    await commitRaw(harness, [ghost('ghost-1')]);
    // The audit found nothing at the first sweep, so it is not due yet.
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(0);
    executor.clock.advanceMs(raftqLimits.reaperAuditIntervalMs.value - 1);
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(0);
    executor.clock.advanceMs(1);
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(1);
    // It found one, so the next sweep audits again without waiting.
    await commitRaw(harness, [ghost('ghost-2')]);
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(1);
    // That audit found one too; the one after finds none and waits out the interval again.
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(0);
    await commitRaw(harness, [ghost('ghost-3')]);
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(0);
    executor.clock.advanceMs(raftqLimits.reaperAuditIntervalMs.value);
    expect((await service.sweepReaper()).danglingRowsDeleted).toBe(1);
    const [message] = await service.receiveMessages('q', { maxMessages: 1 });
    expect(message?.body).toBe('live');
  });

  it('deletes vis, age and group rows whose message data is gone, and keeps those of live messages', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await service.sendMessages('f.fifo', [entry('a', 'a', { messageGroupId: 'g', messageDeduplicationId: 'a' })], {
      senderId: 's',
    });
    const keys = new GenerationKeys('f.fifo', 1);
    const liveBefore = (await executor.liveRows(keys.range())).length;
    const nowMs = executor.nowMs();
    await commitRaw(harness, [
      { kind: 'put', key: keys.visibility(0, nowMs, 999n, 'ghost'), value: Uint8Array.of(0x70) },
      { kind: 'put', key: keys.age(0, nowMs, 'ghost'), value: new Uint8Array(0) },
      { kind: 'put', key: keys.groupMember(0, 'g', 999n), value: new TextEncoder().encode('ghost') },
    ]);
    const report = await service.sweepReaper();
    expect(report.danglingRowsDeleted).toBe(3);
    expect(await executor.liveRows(keys.range())).toHaveLength(liveBefore);
    const [message] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
    expect(message?.body).toBe('a');
  });

  it('works through a huge queue a bounded chunk per tick while a small queue is cleaned in the same tick (fairness)', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'a-huge', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await service.createQueue({ name: 'b-small', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await sendMany(harness, 'a-huge', 2 * rowsMax + 10);
    await sendOne(service, 'b-small', 'old');
    executor.clock.advanceMs(60_000);
    const first = await service.sweepReaper();
    expect(first.expiredMessagesDeleted).toBe(rowsMax + 1);
    expect(await executor.liveRows(new GenerationKeys('b-small', 1).range())).toEqual([]);
    await service.sweepReaper();
    await service.sweepReaper();
    expect(await executor.liveRows(new GenerationKeys('a-huge', 1).range())).toEqual([]);
  });

  it('visits a bounded number of queues per tick and continues the rotation where it stopped', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    const queuesMax = raftqLimits.reaperQueuesPerTickMax.value;
    const count = queuesMax + 6;
    const names = Array.from({ length: count }, (_, i) => `q${String(i).padStart(3, '0')}`);
    for (const name of names) {
      await service.createQueue({ name, attributes: { MessageRetentionPeriod: '60' }, tags: {} });
      await sendOne(service, name, 'old');
    }
    executor.clock.advanceMs(60_000);
    const first = await service.sweepReaper();
    expect(first.queuesVisited).toBe(queuesMax);
    expect(first.expiredMessagesDeleted).toBe(queuesMax);
    const second = await service.sweepReaper();
    expect(second.expiredMessagesDeleted).toBe(count - queuesMax);
    for (const name of names) expect(await executor.liveRows(new GenerationKeys(name, 1).range())).toEqual([]);
  });

  it('deletes finished move tasks past their retention or beyond the newest kept per source, never a running one', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'dlq', attributes: {}, tags: {} });
    await service.createQueue({
      name: 'src',
      attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn('dlq'), maxReceiveCount: 1 }) },
      tags: {},
    });
    const keptMax = raftqLimits.moveTasksKeptPerSourceMax.value;
    for (let i = 0; i < keptMax + 2; i++) {
      await service.startMessageMoveTask({ sourceArn: arn('dlq') });
      executor.clock.advanceMs(1_000);
      await service.stepMoveTasks(); // nothing to move: COMPLETED
    }
    await service.startMessageMoveTask({ sourceArn: arn('dlq') });
    const tasks = () => executor.liveRows(globalKeys.allMoveTasksRange());
    expect(await tasks()).toHaveLength(keptMax + 3);
    expect((await service.sweepReaper()).moveTasksDeleted).toBe(3);
    const listed = await service.listMessageMoveTasks({ sourceArn: arn('dlq'), maxResults: 10 });
    expect(listed[0]?.status).toBe('RUNNING');
    expect(listed).toHaveLength(10);
    executor.clock.advanceMs(raftqLimits.moveTaskRetentionMs.value);
    expect((await service.sweepReaper()).moveTasksDeleted).toBe(keptMax - 1);
    expect((await service.listMessageMoveTasks({ sourceArn: arn('dlq') })).map((t) => t.status)).toEqual(['RUNNING']);
  });

  it('stops after the transaction in progress when its signal aborts (leadership lost), and a later sweep finishes the job', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    for (const name of ['a', 'b']) {
      await service.createQueue({ name, attributes: {}, tags: {} });
      await sendMany(harness, name, 3);
      await service.purgeQueue(name);
    }
    const controller = new AbortController();
    executor.beforeCommit = async () => controller.abort();
    const report = await service.sweepReaper({ signal: controller.signal });
    executor.beforeCommit = undefined;
    expect(report.isComplete).toBe(false);
    expect(report.tombstonesCleared).toBe(1);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toHaveLength(1);
    expect((await service.sweepReaper()).tombstonesCleared).toBe(1);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
  });

  it('a retention delete that races a visibility change conflicts, re-reads the message and leaves no row behind', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'q', attributes: { MessageRetentionPeriod: '60' }, tags: {} });
    await sendOne(service, 'q', 'held');
    const [held] = await service.receiveMessages('q', { maxMessages: 1, visibilityTimeoutSeconds: 120 });
    executor.clock.advanceMs(61_000);
    let isRaced = false;
    executor.beforeCommit = async (txn) => {
      const isReaperDelete = txn.writes.some(
        (w) => w.kind === 'delete' && Buffer.from(w.key).includes(Buffer.from('data')),
      );
      if (!isReaperDelete || isRaced) return;
      isRaced = true;
      // The consumer moves the vis row after the reaper read it.
      const [moved] = await service.changeMessageVisibility('q', [
        { entryId: 'x', receiptHandle: held?.receiptHandle ?? '', visibilityTimeoutSeconds: 300 },
      ]);
      expect(moved).toEqual({ entryId: 'x' });
    };
    const conflictsBefore = executor.conflicts;
    const report = await service.sweepReaper();
    executor.beforeCommit = undefined;
    expect(isRaced).toBe(true);
    expect(executor.conflicts).toBeGreaterThan(conflictsBefore);
    expect(report.expiredMessagesDeleted).toBe(1);
    expect(await executor.liveRows(new GenerationKeys('q', 1).range())).toEqual([]);
  });

  it('an expired dedup row re-used by a send while the reaper deletes it stays, so the next send is still deduplicated', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    const send = async () => {
      const [result] = await service.sendMessages(
        'f.fifo',
        [entry('a', 'body', { messageGroupId: 'g', messageDeduplicationId: 'x' })],
        { senderId: 's' },
      );
      if (result === undefined || 'error' in result) throw new Error('send failed');
      return result.messageId;
    };
    const first = await send();
    executor.clock.advanceMs(300_000);
    let second = '';
    executor.beforeCommit = async (txn) => {
      const isReaperDelete =
        txn.writes.length > 0 &&
        txn.writes.every((w) => w.kind === 'delete' && Buffer.from(w.key).includes(Buffer.from('dedup')));
      if (!isReaperDelete || second !== '') return;
      second = await send(); // the window is over: a new message and a fresh dedup row
    };
    await service.sweepReaper();
    executor.beforeCommit = undefined;
    expect(second).not.toBe(first);
    expect(await executor.liveRows(prefixRange(['q', 'f.fifo', 'g', 1, 'dedup']))).toHaveLength(1);
    expect(await send()).toBe(second);
  });

  it('clears tombstones of a queue whose meta and index rows are gone', async () => {
    const harness = makeHarness();
    const { service, executor } = harness;
    await service.createQueue({ name: 'gone', attributes: {}, tags: {} });
    await sendMany(harness, 'gone', 4);
    await service.purgeQueue('gone');
    await sendMany(harness, 'gone', 2);
    await service.deleteQueue('gone');
    expect(await executor.liveRows(prefixRange(['queues']))).toEqual([]);
    await service.sweepReaper();
    const left = await executor.liveRows(queueKeys.queuePrefix('gone'));
    expect(left.map((row) => Buffer.from(row.key).toString('hex'))).toEqual([
      Buffer.from(queueKeys.generation('gone')).toString('hex'),
    ]);
    expect(await executor.liveRows(globalKeys.tombstoneRange())).toEqual([]);
    expect(await executor.liveRows({ gte: encodeKey(['tomb']), lt: encodeKey(['tomc']) })).toEqual([]);
  });
});
