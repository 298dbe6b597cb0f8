import { setImmediate as drainMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { decodeKey } from '../../src/storage/key-codec.js';
import type { KeyRange, ReadView } from '../../src/storage/txn.js';
import { makeHarness, sendOne, type Harness } from './support/queue-harness.js';

/** Records every range scanned through the harness executor's views. */
function recordScans(h: Harness): KeyRange[] {
  const scanned: KeyRange[] = [];
  const takeView = h.executor.readView.bind(h.executor);
  h.executor.readView = async (options) => {
    const view = await takeView(options);
    const recording: ReadView = {
      ts: view.ts,
      get: (key) => view.get(key),
      getMany: (keys) => view.getMany(keys),
      scan: (range, scanOptions) => {
        scanned.push(range);
        return view.scan(range, scanOptions);
      },
      release: () => view.release(),
    };
    return recording;
  };
  return scanned;
}

/** Scans of vis or state rows: what building the queue index reads. */
function indexRowScans(scanned: readonly KeyRange[]): number {
  return scanned.filter((range) => {
    const family = decodeKey(range.gte)[4];
    return family === 'vis' || family === 'state';
  }).length;
}

describe('an empty receive', () => {
  it('neither as a short poll nor as a long poll scans the stored rows once the queue index is built', async () => {
    const h = makeHarness();
    await h.service.createQueue({ name: 'orders', attributes: {}, tags: {} });
    await sendOne(h.service, 'orders', 'only one');
    expect(await h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 0 })).toHaveLength(1);
    const scanned = recordScans(h);

    expect(await h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 0 })).toEqual([]);
    expect(indexRowScans(scanned)).toBe(0);

    // (Shorter than raftqLimits.queueIndexReloadAfterMs: an index that offers nothing for longer is rebuilt once.)
    const longPoll = h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 5 });
    for (let i = 0; i < 1_000 && h.scheduler.pendingCount === 0; i++) await drainMacrotask();
    h.scheduler.advanceMs(5_000);
    expect(await longPoll).toEqual([]);
    expect(indexRowScans(scanned)).toBe(0);
  });
});
