import { describe, expect, it } from 'vitest';
import { GenerationKeys } from '../../../src/queue/layout/key-layout.js';
import { FifoPartitionIndex } from '../../../src/queue/index/fifo-partition-index.js';

const keys = new GenerationKeys('q.fifo', 1);

function send(
  index: FifoPartitionIndex,
  groupId: string,
  sequence: bigint,
  messageId: string,
  visibleAtMs: number,
): void {
  index.applyGroup({ kind: 'put', groupId, sequence, messageId }, 1);
  index.applyVis(
    { kind: 'put', visibleAtMs, order: sequence, messageId, isNeverReceived: true, retentionStartMs: visibleAtMs },
    1,
  );
}

function remove(
  index: FifoPartitionIndex,
  groupId: string,
  sequence: bigint,
  messageId: string,
  visibleAtMs: number,
): void {
  index.applyGroup({ kind: 'delete', groupId, sequence }, 2);
  index.applyVis({ kind: 'delete', visibleAtMs, messageId }, 2);
}

describe('FifoPartitionIndex', () => {
  it('offers each group once, in the order its head became visible, until it is released', () => {
    const index = new FifoPartitionIndex(0);
    send(index, 'g1', 1n, 'a1', 100);
    send(index, 'g1', 2n, 'a2', 100);
    send(index, 'g2', 3n, 'b1', 200);
    send(index, 'g3', 4n, 'c1', 150);
    index.endBatch();
    const taken = [index.take(1_000), index.take(1_000), index.take(1_000)];
    expect(taken.map((g) => g?.groupId)).toEqual(['g1', 'g3', 'g2']);
    expect(index.take(1_000)).toBeUndefined();
    for (const group of taken) if (group !== undefined) index.release(group);
    expect(index.take(1_000)?.groupId).toBe('g1');
  });

  it('holds a group while its head is in flight, then offers it behind the groups that waited', () => {
    const index = new FifoPartitionIndex(0);
    send(index, 'g1', 1n, 'a1', 100);
    send(index, 'g1', 2n, 'a2', 100);
    send(index, 'g2', 3n, 'b1', 200);
    index.endBatch();
    const g1 = index.take(300);
    index.applyState({ messageId: 'a1', visibleAtMs: 400 });
    index.endBatch();
    if (g1 !== undefined) index.release(g1);
    expect(index.inFlightCount(300)).toBe(1);
    expect(index.nextVisibleAtMs(300)).toBeUndefined();
    const g2 = index.take(300);
    expect(g2?.groupId).toBe('g2');
    if (g2 !== undefined) index.release(g2);
    expect(index.take(350)?.groupId).toBe('g2');
    const later = index.take(400);
    expect(later?.groupId).toBe('g1');
  });

  it('moves a group on to its next message when the head is deleted, and forgets an emptied group', () => {
    const index = new FifoPartitionIndex(0);
    send(index, 'g1', 1n, 'a1', 100);
    send(index, 'g1', 2n, 'a2', 900);
    index.endBatch();
    remove(index, 'g1', 1n, 'a1', 100);
    index.endBatch();
    expect(index.take(500)).toBeUndefined();
    expect(index.nextVisibleAtMs(500)).toBe(900);
    remove(index, 'g1', 2n, 'a2', 900);
    index.endBatch();
    expect(index.size).toBe(0);
    expect(index.take(1_000)).toBeUndefined();
  });

  it("passes expired messages at a group's head once marked, and offers them again when told", () => {
    const index = new FifoPartitionIndex(0);
    send(index, 'g1', 1n, 'a1', 100);
    send(index, 'g1', 2n, 'a2', 800);
    index.endBatch();
    const g1 = index.take(1_000);
    if (g1 === undefined) throw new Error('no group');
    index.markExpired(g1, ['a1']);
    index.release(g1);
    expect(index.take(700)).toBeUndefined();
    expect(index.take(800)?.groupId).toBe('g1');
  });
});
