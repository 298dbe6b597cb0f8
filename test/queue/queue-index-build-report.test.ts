/**
 * A node counts the queue index builds it runs to their end (the rows they scanned, the time they
 * took) for /metrics, and logs a build long enough for an operator to notice: a new leader's
 * index of a large backlog (src/queue/queue-service.ts, noteIndexBuilt).
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { makeHarness, sendOne } from './support/queue-harness.js';
import { scanHookedExecutor } from './support/scan-hooked-executor.js';

describe('queue index build report', () => {
  it('counts each finished build with the rows it scanned, and logs only a build that took a second or more', async () => {
    const { service, executor, scheduler } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 25; i++) await sendOne(service, 'q', `m${i}`);
    executor.clock.advanceMs(1_000);

    // Another node of the same state builds its own index on its first receive; every scan of that
    // build takes 600 ms of the executor's clock.
    const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
    let msPerScan = 0;
    const otherNode = new QueueService({
      executor: scanHookedExecutor(executor, () => executor.clock.advanceMs(msPerScan)),
      accountId: '000000000000',
      region: 'us-east-1',
      scheduler,
      prng: new SeededPrng(7),
      logger: { warn: () => {}, info: (fields, message) => logged.push({ fields, message }) },
    });
    expect(otherNode.indexBuildTotals).toEqual({ builds: 0, rowsScanned: 0, seconds: 0 });

    msPerScan = 0;
    const received = await otherNode.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 60 });
    expect(received).toHaveLength(10);
    await waitForBuilds(otherNode);
    // 25 vis rows and no state row: nothing had been received when the build read.
    expect(otherNode.indexBuildTotals).toEqual({ builds: 1, rowsScanned: 25, seconds: 0 });
    expect(logged).toEqual([]);

    // A purge supersedes the generation; the next receive builds the new one's index, slowly.
    await otherNode.purgeQueue('q');
    executor.clock.advanceMs(61_000);
    for (let i = 0; i < 3; i++) await sendOne(service, 'q', `n${i}`);
    executor.clock.advanceMs(1_000);
    msPerScan = 600;
    expect(await otherNode.receiveMessages('q', { maxMessages: 10 })).toHaveLength(3);
    await waitForBuilds(otherNode);
    const totals = otherNode.indexBuildTotals;
    expect(totals.builds).toBe(2);
    expect(totals.rowsScanned).toBe(28);
    // Two scans (vis rows, then state rows) of 600 ms each.
    expect(totals.seconds).toBeCloseTo(1.2, 6);
    expect(logged).toEqual([
      {
        message: 'queue index built',
        fields: {
          queue: 'q',
          generation: 2,
          partition: 0,
          rowsScanned: 3,
          durationMs: 1_200,
          wasServedEarly: true,
        },
      },
    ]);
    otherNode.close();
  });
});

/** Lets the builds in progress end: a standard queue's receive returns before its build does. */
async function waitForBuilds(service: QueueService): Promise<void> {
  while (service.indexBuildsRunning > 0) await new Promise<void>((resolve) => setImmediate(resolve));
}
