/**
 * The transaction traps of docs/TRAPS.md that concern the message path: each test stages the race
 * with the model executor's beforeCommit hook, or loses a commit reply, and would fail on the
 * buggy behaviour named in its title.
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { QueueDoesNotExistError } from '../../src/queue/errors.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { entry, makeHarness, receiveAll, sendOne } from './support/queue-harness.js';

describe('message-path transactions', () => {
  it('two receives on different nodes racing for the same messages never both get one: the loser re-reads and gets others (trap 1)', async () => {
    const { service, executor, scheduler } = makeHarness();
    const otherNode = new QueueService({
      executor,
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(2),
    });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await service.sendMessages(
      'q',
      Array.from({ length: 4 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );
    let rival: Promise<unknown> | undefined;
    let rivalMessages: string[] = [];
    executor.beforeCommit = async () => {
      if (rival !== undefined) return;
      executor.beforeCommit = undefined;
      rival = otherNode.receiveMessages('q', { maxMessages: 2 }).then((m) => {
        rivalMessages = m.map((x) => x.messageId);
      });
      await rival;
    };
    const mine = (await service.receiveMessages('q', { maxMessages: 2 })).map((m) => m.messageId);
    expect(rivalMessages).toHaveLength(2);
    expect(mine).toHaveLength(2);
    expect(new Set([...mine, ...rivalMessages]).size).toBe(4);
    expect(executor.conflicts).toBeGreaterThanOrEqual(1);
  });

  it('concurrent receives on one node take different messages without conflicting', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await service.sendMessages(
      'q',
      Array.from({ length: 10 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );
    const batches = await Promise.all(
      Array.from({ length: 5 }, () => service.receiveMessages('q', { maxMessages: 2 })),
    );
    const ids = batches.flat().map((m) => m.messageId);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect(executor.conflicts).toBe(0);
  });

  it('every message-path txn reads meta and gen, so a send racing a purge lands in the new generation (trap 2)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    let hasPurged = false;
    executor.beforeCommit = async (txn) => {
      if (hasPurged || txn.writes.length !== 2) return; // the send: data and vis rows
      hasPurged = true;
      executor.beforeCommit = undefined;
      await service.purgeQueue('q');
    };
    await sendOne(service, 'q', 'after-purge');
    expect(hasPurged).toBe(true);
    expect((await receiveAll(service, 'q')).map((m) => m.body)).toEqual(['after-purge']);
    const attributes = await service.getQueueAttributes('q', ['ApproximateNumberOfMessagesNotVisible']);
    expect(attributes['ApproximateNumberOfMessagesNotVisible']).toBe('1');
  });

  it('a send racing a delete fails with QueueDoesNotExist instead of writing into the dead generation (trap 2)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      await service.deleteQueue('q');
    };
    await expect(sendOne(service, 'q', 'lost?')).rejects.toBeInstanceOf(QueueDoesNotExistError);
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    expect(await receiveAll(service, 'q')).toEqual([]);
  });

  it('a retry after a conflict re-reads meta: the delay set in between applies (trap 4)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      await service.setQueueAttributes('q', { DelaySeconds: '30' });
    };
    await sendOne(service, 'q', 'delayed by the retry');
    expect(await receiveAll(service, 'q')).toEqual([]);
    executor.clock.advanceMs(30_000);
    expect((await receiveAll(service, 'q')).map((m) => m.body)).toEqual(['delayed by the retry']);
  });

  it('a retry after a conflict re-reads the size limit set in between (trap 4)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      await service.setQueueAttributes('q', { MaximumMessageSize: '1024' });
    };
    const [result] = await service.sendMessages('q', [entry('big', 'x'.repeat(2000))], { senderId: 's' });
    expect(result !== undefined && 'error' in result && result.error.code).toBe('MessageTooLong');
    expect(await receiveAll(service, 'q')).toEqual([]);
  });

  it('a batch whose commit reply is lost is re-proposed with the same txn id and enqueued once (trap 8)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    executor.loseRepliesCount = 1;
    const results = await service.sendMessages(
      'q',
      Array.from({ length: 10 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );
    const received = await receiveAll(service, 'q');
    expect(received).toHaveLength(10);
    expect(new Set(received.map((m) => m.messageId))).toEqual(
      new Set(results.map((r) => ('messageId' in r ? r.messageId : ''))),
    );
  });

  it('a batch retried after a conflict keeps the message ids it minted first (trap 8)', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const attemptIds: string[][] = [];
    executor.beforeCommit = async (txn) => {
      const dataKeys = txn.writes.map((w) => Buffer.from(w.key).toString('latin1')).filter((k) => k.includes('data'));
      if (dataKeys.length === 0) return;
      attemptIds.push(dataKeys);
      if (attemptIds.length === 1) await service.tagQueue('q', { bump: 'meta' });
    };
    await service.sendMessages('q', [entry('a', '1'), entry('b', '2')], { senderId: 's' });
    executor.beforeCommit = undefined;
    expect(attemptIds.length).toBeGreaterThanOrEqual(2);
    expect(attemptIds[1]).toEqual(attemptIds[0]);
    expect(await receiveAll(service, 'q')).toHaveLength(2);
  });
});
