/**
 * A queue index build that lasts longer than the MVCC history (a queue of a million messages on a
 * busy node) still ends. A read view older than mvccHistoryMs stops holding garbage collection
 * back, and its reads fail once collection passes it; a build that read every page through the
 * view it took first failed there and started over, for ever (docs/BENCHMARKS.md, "The session of
 * 2026-12-05"). Here the real MVCC store keeps one second of history; before each page after the
 * first, nine tenths of it pass while messages are sent, and collection runs.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { SeededPrng } from '../../src/base/prng.js';
import { indexBuildPageRows as buildPageRows } from '../../src/queue/index/queue-indexes.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { LocalTxnExecutor } from '../../src/storage/local-txn-executor.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import type { TxnExecutor } from '../../src/storage/txn.js';
import { ManualScheduler } from './support/manual-scheduler.js';
import { entry } from './support/queue-harness.js';
import { scanHookedExecutor } from './support/scan-hooked-executor.js';

const historyMs = 1_000;

function serviceOver(executor: TxnExecutor, clock: ManualClock, seed: number): QueueService {
  return new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler: new ManualScheduler(clock),
    prng: new SeededPrng(seed),
  });
}

describe('a queue index build longer than the MVCC history', () => {
  it('ends, and every message is delivered once, although collection passes the view of its first page', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = await MvccStore.open(new MemoryEngine(), { historyMs });
    const executor = new LocalTxnExecutor({ store, clock });
    const writer = serviceOver(executor, clock, 1);
    await writer.createQueue({ name: 'q', attributes: {}, tags: {} });
    // Two full pages of vis rows and part of a third, sent ten at a time.
    const total = 2 * buildPageRows + 38;
    for (let i = 0; i < total; i += 10) {
      await writer.sendMessages(
        'q',
        Array.from({ length: 10 }, (_, k) => entry(`e${k}`, `m${i + k}`)),
        { senderId: 'tester' },
      );
    }
    clock.advanceMs(1_000);

    let pagesScanned = 0;
    let lateSends = 0;
    /** The commit timestamp a view taken for the first page reads at. */
    let firstPageViewTs = 0;
    let releaseAging: () => void = () => {};
    const agingReleased = new Promise<void>((resolve) => {
      releaseAging = resolve;
    });
    const reader = serviceOver(
      scanHookedExecutor(executor, async (options) => {
        if (options.limit !== buildPageRows) return;
        pagesScanned++;
        if (pagesScanned === 1) {
          firstPageViewTs = store.lastCommitTs;
          return;
        }
        // Only once the receive served from the first page has ended (its own view is not aged).
        await agingReleased;
        // Before each later page: nine tenths of the history passes while writes go on, and
        // collection catches up with them. A view taken for this page stays readable; the view
        // taken before the first page is more than the history old by the third page.
        for (let step = 0; step < 6; step++) {
          clock.advanceMs((historyMs * 0.9) / 6);
          await writer.sendMessages('q', [entry('late', `late${lateSends++}`)], { senderId: 'tester' });
        }
        await store.collectGarbage();
      }),
      clock,
      2,
    );

    // The first receive is served from the head while the build goes on.
    const bodies = (await reader.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 })).map(
      (m) => m.body,
    );
    expect(bodies).toHaveLength(10);
    releaseAging();
    for (let turns = 0; reader.indexBuildsRunning > 0 && turns < 10_000; turns++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(reader.indexBuildsRunning).toBe(0);
    // The build ended (a build that failed is not counted) while collection passed its first view.
    expect(pagesScanned).toBeGreaterThanOrEqual(4);
    expect(store.readFloorTs).toBeGreaterThan(firstPageViewTs);
    expect(reader.indexBuildTotals.builds).toBe(1);

    for (let emptyAnswers = 0; emptyAnswers < 3;) {
      const batch = await reader.receiveMessages('q', { maxMessages: 10, visibilityTimeoutSeconds: 600 });
      if (batch.length === 0) emptyAnswers++;
      bodies.push(...batch.map((m) => m.body));
    }
    const expected = total + lateSends;
    expect(bodies).toHaveLength(expected);
    expect(new Set(bodies).size).toBe(expected);
    reader.close();
    writer.close();
  }, 60_000);
});
