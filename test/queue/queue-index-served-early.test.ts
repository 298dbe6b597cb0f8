/**
 * A new leader of a large standard queue serves receives from its queue index while the index is
 * still being built (src/queue/index/queue-indexes.ts): the head of the queue is in after the
 * first page of vis rows. These tests hold the build after that page and show that receives are
 * served meanwhile, that a message another node holds in flight is not delivered again (the
 * partly built index has not seen the state rows yet, so it reads them), and that once the build
 * ends every message is delivered exactly once.
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { indexBuildPageRows as buildPageRows } from '../../src/queue/index/queue-indexes.js';
import { QueueService } from '../../src/queue/queue-service.js';
import type { TxnExecutor } from '../../src/storage/txn.js';
import { entry, makeHarness } from './support/queue-harness.js';
import { scanHookedExecutor } from './support/scan-hooked-executor.js';

/** The executor as another node would use it, whose index-build scans wait for `beforeBuildPage` (pages counted from 0 over all builds). */
function nodeExecutor(executor: TxnExecutor, beforeBuildPage: (page: number) => Promise<void>): TxnExecutor {
  let pagesSeen = 0;
  return scanHookedExecutor(executor, async (options) => {
    if (options.limit === buildPageRows) await beforeBuildPage(pagesSeen++);
  });
}

describe('a queue index served while it is built', () => {
  it('serves the head of a large queue before the build ends, never delivers a message in flight elsewhere, and delivers each message once', async () => {
    const { service, executor, scheduler } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    const total = buildPageRows + 504;
    for (let i = 0; i < total; i += 10) {
      await service.sendMessages(
        'q',
        Array.from({ length: 10 }, (_, k) => entry(`e${k}`, `m${i + k}`)),
        { senderId: 'tester' },
      );
    }
    executor.clock.advanceMs(1_000);
    // This node holds the head of the queue in flight.
    const inFlight = await service.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 });
    expect(inFlight.map((m) => m.body)).toEqual(Array.from({ length: 10 }, (_, k) => `m${k}`));

    let releaseBuild: () => void = () => {};
    const buildHeld = new Promise<void>((resolve) => {
      releaseBuild = resolve;
    });
    let isBuildHeld = false;
    const newLeader = new QueueService({
      executor: nodeExecutor(executor, async (page) => {
        // The second page of the first build: the head of the queue is in.
        if (page !== 1) return;
        isBuildHeld = true;
        // A write applied while the receive runs: the index has now heard a batch the receive's
        // view may not hold, which is when it would trust an entry's "never received".
        await service.sendMessages('q', [entry('late', 'sent during the build')], { senderId: 'tester' });
        await buildHeld;
      }),
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(7),
    });

    const early = await newLeader.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 });
    expect(isBuildHeld).toBe(true);
    expect(early.map((m) => m.body)).toEqual(Array.from({ length: 10 }, (_, k) => `m${10 + k}`));

    releaseBuild();
    const bodies = early.map((m) => m.body);
    // The rest arrives as the build goes on: receive until every message not in flight came.
    const expected = total + 1 - inFlight.length;
    for (let emptyAnswers = 0; bodies.length < expected && emptyAnswers < 1_000;) {
      const batch = await newLeader.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 });
      if (batch.length === 0) emptyAnswers++;
      bodies.push(...batch.map((m) => m.body));
    }
    expect(bodies).toHaveLength(expected);
    expect(new Set(bodies).size).toBe(expected);
    for (const message of inFlight) expect(bodies).not.toContain(message.body);
    expect(await newLeader.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    newLeader.close();
  }, 60_000);

  it('a message sent while an index that offered nothing is rebuilt is delivered (the rebuild hears it too)', async () => {
    const { service, executor, scheduler } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    let isRebuilding = false;
    const node = new QueueService({
      executor: nodeExecutor(executor, async () => {
        if (!isRebuilding) return;
        isRebuilding = false;
        await service.sendMessages('q', [entry('late', 'sent during the rebuild')], { senderId: 'tester' });
      }),
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(9),
    });
    // This node's index of the queue, empty; once it is older than the reload age, a receive rebuilds it.
    expect(await node.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
    executor.clock.advanceMs(60_000);
    isRebuilding = true;
    const during = await node.receiveMessages('q', { maxMessages: 10 });
    const after = await node.receiveMessages('q', { maxMessages: 10 });
    expect([...during, ...after].map((m) => m.body)).toEqual(['sent during the rebuild']);
    node.close();
  });

  it('a build still scanning stops when its queue service closes', async () => {
    const { service, executor, scheduler } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 2 * buildPageRows + 10; i += 10) {
      await service.sendMessages(
        'q',
        Array.from({ length: 10 }, (_, k) => entry(`e${k}`, `m${i + k}`)),
        { senderId: 'tester' },
      );
    }
    executor.clock.advanceMs(1_000);
    let pagesScanned = 0;
    let releaseBuild: () => void = () => {};
    const buildHeld = new Promise<void>((resolve) => {
      releaseBuild = resolve;
    });
    const node = new QueueService({
      executor: nodeExecutor(executor, async (page) => {
        pagesScanned = page + 1;
        if (page === 1) await buildHeld;
      }),
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(11),
    });
    expect(await node.receiveMessages('q', { maxMessages: 1 })).toHaveLength(1);
    expect(node.indexBuildsRunning).toBe(1);
    node.close();
    releaseBuild();
    for (let turns = 0; node.indexBuildsRunning > 0 && turns < 10_000; turns++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(node.indexBuildsRunning).toBe(0);
    // The second vis page was read when the close came; no third page and no state rows after it.
    expect(pagesScanned).toBe(2);
  }, 60_000);

  it('a long poll parked on an index served early looks again when the build ends, and is answered when the in-flight message comes back', async () => {
    const { service, executor, scheduler } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await service.sendMessages('q', [entry('only', 'comes back in 5 s')], { senderId: 'tester' });
    // Another node holds the only message, for 5 s.
    expect(await service.receiveMessages('q', { maxMessages: 1, visibilityTimeoutSeconds: 5 })).toHaveLength(1);
    let releaseBuild: () => void = () => {};
    const buildHeld = new Promise<void>((resolve) => {
      releaseBuild = resolve;
    });
    const node = new QueueService({
      // Page 0 is the vis rows (the index is served early after it); page 1 the state rows.
      executor: nodeExecutor(executor, async (page) => {
        if (page === 1) await buildHeld;
      }),
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(13),
    });
    let answer: string[] | undefined;
    const poll = node.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 }).then((messages) => {
      answer = messages.map((m) => m.body);
    });
    const turns = async (until: () => boolean): Promise<void> => {
      for (let turn = 0; !until() && turn < 1_000; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    // Served early, the receive read the message's state row (in flight) and parked: when the
    // message comes back was not known yet.
    await turns(() => node.waitingReceiveCount === 1 && node.indexBuildsRunning === 1);
    expect(node.waitingReceiveCount).toBe(1);
    releaseBuild();
    await turns(() => node.indexBuildsRunning === 0);
    await turns(() => scheduler.pendingCount > 0 && scheduler.nextDueMs() <= executor.nowMs() + 5_000);
    scheduler.advanceMs(5_000);
    await turns(() => answer !== undefined);
    expect(answer).toEqual(['comes back in 5 s']);
    await poll;
    node.close();
  });
});
