/**
 * Receives on different nodes start at different points of a standard queue's head
 * (receive-scan-slot.ts), so they take disjoint messages instead of racing at OCC.
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { QueueService } from '../../src/queue/queue-service.js';
import {
  firstPageOffset,
  receiveScanSlotOf,
  rotatedRows,
  type ReceiveScanSlot,
} from '../../src/queue/receive-scan-slot.js';
import { entry, makeHarness, type Harness } from './support/queue-harness.js';

function nodeWithSlot(harness: Harness, slot: ReceiveScanSlot, seed: number): QueueService {
  return new QueueService({
    executor: harness.executor,
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler: harness.scheduler,
    prng: new SeededPrng(seed),
    receiveScanSlot: () => slot,
  });
}

async function sendBodies(
  service: QueueService,
  queue: string,
  bodies: readonly string[],
  extra: { messageGroupId?: string } = {},
): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const batch = bodies.slice(i, i + 10).map((body, j) =>
      entry(`e${j}`, body, {
        ...extra,
        ...(extra.messageGroupId !== undefined ? { messageDeduplicationId: body } : {}),
      }),
    );
    await service.sendMessages(queue, batch, { senderId: 's' });
  }
}

const bodies = Array.from({ length: 30 }, (_, i) => `m${String(i).padStart(2, '0')}`);

describe('receive scan slots', () => {
  it('two nodes with different slots receiving from the same view take disjoint messages without a conflict', async () => {
    const harness = makeHarness();
    const nodeA = nodeWithSlot(harness, { slot: 0, slotCount: 3 }, 2);
    const nodeB = nodeWithSlot(harness, { slot: 1, slotCount: 3 }, 3);
    await nodeA.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendBodies(nodeA, 'q', bodies);
    // B's receive runs to its end while A's is about to commit: both read the same head.
    let fromB: string[] = [];
    harness.executor.beforeCommit = async () => {
      harness.executor.beforeCommit = undefined;
      fromB = (await nodeB.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body);
    };
    const fromA = (await nodeA.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body);
    expect(fromA).toEqual(bodies.slice(0, 10));
    expect(fromB).toEqual(bodies.slice(10, 20));
    expect(harness.executor.conflicts).toBe(0);
  });

  it('a node whose slot lies past the visible rows wraps around and still takes what there is', async () => {
    const harness = makeHarness();
    const node = nodeWithSlot(harness, { slot: 2, slotCount: 3 }, 2);
    await node.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendBodies(node, 'q', bodies.slice(0, 7));
    // Offset 2 × 10 = 20 wraps to 20 mod 7 = 6: the seventh message first, then the first six.
    const received = (await node.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body);
    expect(received).toEqual([bodies[6], ...bodies.slice(0, 6)]);
  });

  it('a FIFO queue is received from the head of its groups whatever the slot', async () => {
    const harness = makeHarness();
    const node = nodeWithSlot(harness, { slot: 1, slotCount: 3 }, 2);
    await node.createQueue({ name: 'q.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
    await sendBodies(node, 'q.fifo', bodies.slice(0, 15), { messageGroupId: 'g' });
    const received = (await node.receiveMessages('q.fifo', { maxMessages: 10 })).map((m) => m.body);
    expect(received).toEqual(bodies.slice(0, 10));
  });

  it('one node (no slot given) receives from the head in order', async () => {
    const { service } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await sendBodies(service, 'q', bodies);
    expect((await service.receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual(bodies.slice(0, 10));
  });

  it("a node's slot is its index among the sorted voters, and a non-voter takes the single slot", () => {
    expect(receiveScanSlotOf('n2', ['n3', 'n1', 'n2'])).toEqual({ slot: 1, slotCount: 3 });
    expect(receiveScanSlotOf('n9', ['n3', 'n1', 'n2'])).toEqual({ slot: 0, slotCount: 1 });
    expect(receiveScanSlotOf('n1', ['n1'])).toEqual({ slot: 0, slotCount: 1 });
  });

  it('the first-page offset is slot × wanted, wrapped to the page, and rotation keeps every row', () => {
    expect(firstPageOffset({ slot: 0, slotCount: 3 }, 10, 64)).toBe(0);
    expect(firstPageOffset({ slot: 2, slotCount: 3 }, 10, 64)).toBe(20);
    expect(firstPageOffset({ slot: 2, slotCount: 3 }, 10, 15)).toBe(5);
    expect(firstPageOffset({ slot: 1, slotCount: 3 }, 10, 0)).toBe(0);
    expect(rotatedRows([1, 2, 3, 4, 5], 2)).toEqual([3, 4, 5, 1, 2]);
    expect(() => firstPageOffset({ slot: 3, slotCount: 3 }, 10, 64)).toThrow();
  });
});

describe('cachedReceiveScanSlot', () => {
  it('answers from the last voter list until a new one arrives, then takes the new slot', async () => {
    const { cachedReceiveScanSlot } = await import('../../src/queue/receive-scan-slot.js');
    let voters: readonly string[] = ['n1', 'n2', 'n3'];
    const slotOf = cachedReceiveScanSlot('n3', () => voters);
    expect(slotOf()).toEqual({ slot: 2, slotCount: 3 });
    voters = ['n3', 'n4'];
    expect(slotOf()).toEqual({ slot: 0, slotCount: 2 });
  });
});
