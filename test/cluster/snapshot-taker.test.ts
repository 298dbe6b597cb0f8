/**
 * When a snapshot is due, and how much log it keeps behind it: a window counted in entries must not
 * keep more bytes than the bound that made the snapshot due, or every apply takes another one.
 */
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelLogStore } from '../../src/cluster/level-log-store.js';
import type { NodeMetrics } from '../../src/cluster/node-metrics.js';
import { SnapshotTaker } from '../../src/cluster/snapshot-taker.js';
import type { StateStore } from '../../src/cluster/state-store.js';
import { entrySizeBytes } from '../../src/raft/entry-size.js';
import { EntryType, type Entry } from '../../src/raft/types.js';
import { makeTempDir } from '../support/temp-dir.js';

const bootstrap = { confState: { voters: ['n1'], learners: [] }, index: 0, addresses: { n1: '127.0.0.1:1' } };
const entryDataBytes = 1_000;
const logBytesMax = 10_000;

function bigEntry(index: number): Entry {
  return { index, term: 1, type: EntryType.Normal, data: new Uint8Array(entryDataBytes).fill(index % 251) };
}

describe('SnapshotTaker', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  async function setUp(
    // By default far more entries than the tests write: only the byte bound can make a snapshot due.
    config = { snapshotThresholdEntries: 10_000, snapshotCatchUpEntries: 1_000 },
  ): Promise<{
    logStore: LevelLogStore;
    taker: SnapshotTaker;
    snapshots: () => number;
    apply: (index: number) => void;
  }> {
    const dir = makeTempDir('snapshot-taker');
    cleanups.push(dir.cleanup);
    const logStore = await LevelLogStore.open(join(dir.path, 'raft'), bootstrap);
    cleanups.push(() => void logStore.close());
    let appliedIndex = 0;
    let snapshotsTaken = 0;
    const state = {
      get appliedIndex() {
        return appliedIndex;
      },
      mvcc: { flush: async () => {} },
    } as unknown as StateStore;
    const taker = new SnapshotTaker({
      config,
      logger: pino({ level: 'silent' }),
      metrics: { snapshotsTaken: { inc: () => snapshotsTaken++ } } as unknown as NodeMetrics,
      logStore,
      state: () => state,
      logBytesMax,
    });
    return { logStore, taker, snapshots: () => snapshotsTaken, apply: (index) => (appliedIndex = index) };
  }

  it('keeps at most half the byte bound behind a snapshot the log size made due, so the next apply does not take another', async () => {
    const { logStore, taker, snapshots, apply } = await setUp();
    const entries = Array.from({ length: 100 }, (_, i) => bigEntry(i + 1));
    await logStore.persist({ term: 1, vote: 'n1', commit: 100 }, entries);
    apply(100);
    await taker.maybeSnapshot(entries[99] as Entry);
    expect(snapshots()).toBe(1);
    expect(logStore.logBytes()).toBeLessThanOrEqual(logBytesMax / 2);
    // A catch-up window is still kept: as many whole entries as fit in half the bound.
    const perEntry = entrySizeBytes(bigEntry(1));
    expect(logStore.firstIndex()).toBe(100 - Math.floor(logBytesMax / 2 / perEntry) + 1);

    const next = bigEntry(101);
    await logStore.persist({ term: 1, vote: 'n1', commit: 101 }, [next]);
    apply(101);
    await taker.maybeSnapshot(next);
    expect(snapshots()).toBe(1);
  });

  it('compacts index 1 away at the first apply, since the founding configuration is not in the log, and only then', async () => {
    const { logStore, taker, snapshots, apply } = await setUp();
    const first = bigEntry(1);
    await logStore.persist({ term: 1, vote: 'n1', commit: 1 }, [first]);
    apply(1);
    await taker.maybeSnapshot(first);
    expect(snapshots()).toBe(1);
    expect(logStore.firstIndex()).toBe(2);
    expect(logStore.snapshot().meta.confState.voters).toEqual(['n1']);

    const second = bigEntry(2);
    await logStore.persist({ term: 1, vote: 'n1', commit: 2 }, [second]);
    apply(2);
    await taker.maybeSnapshot(second);
    expect(snapshots()).toBe(1);
  });

  it('keeps the catch-up window counted in entries when its bytes are within the bound', async () => {
    const { logStore, taker, snapshots, apply } = await setUp({
      snapshotThresholdEntries: 20,
      snapshotCatchUpEntries: 5,
    });
    const entries = Array.from({ length: 25 }, (_, i): Entry => ({
      index: i + 1,
      term: 1,
      type: EntryType.Normal,
      data: new Uint8Array(10),
    }));
    await logStore.persist({ term: 1, vote: 'n1', commit: 25 }, entries);
    apply(25);
    await taker.maybeSnapshot(entries[24] as Entry);
    expect(snapshots()).toBe(1);
    expect([logStore.firstIndex(), logStore.lastIndex()]).toEqual([21, 25]);
  });
});
