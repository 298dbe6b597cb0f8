import { describe, expect, it } from 'vitest';
import { GenerationKeys } from '../../../src/queue/layout/key-layout.js';
import { StandardPartitionIndex } from '../../../src/queue/index/standard-partition-index.js';
import type { VisRowEvent } from '../../../src/queue/index/index-events.js';

const keys = new GenerationKeys('q', 1);
const never = Number.NEGATIVE_INFINITY;

function put(messageId: string, visibleAtMs: number, order: bigint, retentionStartMs?: number): VisRowEvent {
  return { kind: 'put', visibleAtMs, order, messageId, isNeverReceived: true, retentionStartMs };
}

function takeAll(index: StandardPartitionIndex, nowMs: number, expiredBeforeMs = never): string[] {
  const taken: string[] = [];
  for (let m = index.take(nowMs, expiredBeforeMs); m !== undefined; m = index.take(nowMs, expiredBeforeMs))
    taken.push(m.messageId);
  return taken;
}

describe('StandardPartitionIndex', () => {
  it('offers visible messages in enqueue order, each to one taker until it is released', () => {
    const index = new StandardPartitionIndex(0);
    index.applyVis(put('c', 100, 3n), 1);
    index.applyVis(put('a', 100, 1n), 1);
    index.applyVis(put('later', 500, 4n), 1);
    index.applyVis(put('b', 100, 2n), 1);
    index.endBatch();
    const first = index.take(200, never);
    expect(first?.messageId).toBe('a');
    expect(takeAll(index, 200)).toEqual(['b', 'c']);
    expect(index.take(200, never)).toBeUndefined();
    if (first !== undefined) index.release(first);
    expect(takeAll(index, 600)).toEqual(['a', 'later']);
  });

  it('a received message waits for its deadline, then comes back at its enqueue position', () => {
    const index = new StandardPartitionIndex(0);
    index.applyVis(put('a', 100, 1n), 1);
    index.applyVis(put('b', 100, 2n), 1);
    index.endBatch();
    const a = index.take(100, never);
    // The claim commits: its state row says visible again at 1000.
    index.applyState({ messageId: 'a', visibleAtMs: 1_000 });
    index.endBatch();
    if (a !== undefined) index.release(a);
    expect(a?.isNeverReceived).toBe(false);
    expect(index.nextVisibleAtMs(100)).toBe(1_000);
    expect(index.inFlightCount(100)).toBe(1);
    index.applyVis(put('c', 200, 3n), 2);
    index.endBatch();
    expect(takeAll(index, 500)).toEqual(['b', 'c']);
    const later = new StandardPartitionIndex(0);
    later.applyVis(put('a', 100, 1n), 1);
    later.applyState({ messageId: 'a', visibleAtMs: 1_000 });
    later.applyVis(put('b', 100, 2n), 1);
    later.endBatch();
    expect(takeAll(later, 1_000)).toEqual(['a', 'b']);
  });

  it('forgets a message whose vis row is deleted, but not one whose row is deleted and put back in the same batch', () => {
    const index = new StandardPartitionIndex(0);
    const a = put('a', 100, 1n);
    index.applyVis(a, 1);
    index.applyVis(put('b', 100, 2n), 1);
    index.endBatch();
    index.applyVis({ kind: 'delete', visibleAtMs: 100, messageId: 'a' }, 2);
    const movedBack = put('b', 50, 2n);
    index.applyVis({ kind: 'delete', visibleAtMs: 100, messageId: 'b' }, 2);
    index.applyVis(movedBack, 2);
    index.endBatch();
    expect(index.size).toBe(1);
    expect(takeAll(index, 1_000)).toEqual(['b']);
  });

  it('passes messages known to be past retention without offering them, and offers them again when told the retention grew', () => {
    const index = new StandardPartitionIndex(0);
    index.applyVis(put('old', 100, 1n, 100), 1);
    index.applyVis(put('new', 100, 2n, 5_000), 1);
    index.endBatch();
    expect(takeAll(index, 6_000, 1_000)).toEqual(['new']);
    index.reviveExpired();
    expect(takeAll(index, 6_000, never)).toEqual(['old']);
  });

  it('drops a phantom (a message whose rows are gone) for good', () => {
    const index = new StandardPartitionIndex(0);
    index.applyVis(put('ghost', 100, 1n), 1);
    index.endBatch();
    const ghost = index.take(100, never);
    if (ghost !== undefined) {
      index.dropPhantom(ghost);
      index.release(ghost);
    }
    expect(index.size).toBe(0);
    expect(index.take(100, never)).toBeUndefined();
  });

  it('keeps its heaps bounded by the messages it holds, however many were received with a long timeout and deleted', () => {
    const index = new StandardPartitionIndex(0);
    const twelveHoursMs = 43_200_000;
    for (let i = 0; i < 50_000; i++) {
      const id = `m${i}`;
      index.applyVis(put(id, i, BigInt(i)), i);
      index.endBatch();
      const taken = index.take(i, never);
      index.applyState({ messageId: id, visibleAtMs: i + twelveHoursMs });
      index.endBatch();
      if (taken !== undefined) index.release(taken);
      index.applyVis({ kind: 'delete', visibleAtMs: i, messageId: id }, i);
      index.endBatch();
    }
    expect(index.size).toBe(0);
    expect(index.slotCount).toBeLessThan(10_000);
  });
});
