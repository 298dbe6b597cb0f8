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

/** Scans of vis rows that start after `nowMs`: the in-flight and delayed part of the index. */
function futureVisScans(scanned: readonly KeyRange[], nowMs: number): number {
  return scanned.filter((range) => {
    const tuple = decodeKey(range.gte);
    return tuple[4] === 'vis' && typeof tuple[6] === 'number' && tuple[6] > nowMs;
  }).length;
}

describe('an empty receive', () => {
  it('as a short poll does not look for the earliest in-flight message; as a long poll it does', async () => {
    const h = makeHarness();
    await h.service.createQueue({ name: 'orders', attributes: {}, tags: {} });
    await sendOne(h.service, 'orders', 'only one');
    expect(await h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 0 })).toHaveLength(1);
    const scanned = recordScans(h);
    const nowMs = h.executor.nowMs();

    expect(await h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 0 })).toEqual([]);
    expect(futureVisScans(scanned, nowMs)).toBe(0);

    const longPoll = h.service.receiveMessages('orders', { maxMessages: 1, waitTimeSeconds: 20 });
    for (let i = 0; i < 1_000 && h.scheduler.pendingCount === 0; i++) await drainMacrotask();
    h.scheduler.advanceMs(20_000);
    expect(await longPoll).toEqual([]);
    expect(futureVisScans(scanned, nowMs)).toBeGreaterThan(0);
  });
});
