/**
 * A standard receive reads the rows of the messages it takes from the head of the queue together
 * (MessageStore.readMany → ReadView.getMany), so that the data rows of messages sent one after
 * another come from the engine in one pass instead of a round trip each.
 */
import { describe, expect, it } from 'vitest';
import { classifyStateKey } from '../../src/queue/layout/key-family.js';
import type { ReadView } from '../../src/storage/txn.js';
import type { HookedTxnExecutor } from './support/hooked-txn-executor.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

interface RowReads {
  /** Data rows read one at a time (ReadView.get). */
  dataGets: number;
  /** Calls of ReadView.getMany, and the data and state rows they asked for. */
  batches: Array<{ data: number; state: number }>;
}

/** Counts the message-row reads made through every view the executor hands out from now on. */
function countRowReads(executor: HookedTxnExecutor): RowReads {
  const reads: RowReads = { dataGets: 0, batches: [] };
  const readView = executor.readView.bind(executor);
  const familyOf = (key: Uint8Array): string => classifyStateKey(key).family;
  executor.readView = async (options) => {
    const view = await readView(options);
    const counted: ReadView = {
      ts: view.ts,
      get: (key) => {
        if (familyOf(key) === 'data') reads.dataGets++;
        return view.get(key);
      },
      getMany: (keys) => {
        reads.batches.push({
          data: keys.filter((key) => familyOf(key) === 'data').length,
          state: keys.filter((key) => familyOf(key) === 'state').length,
        });
        return view.getMany(keys);
      },
      scan: (range, scanOptions) => view.scan(range, scanOptions),
      release: () => view.release(),
    };
    return counted;
  };
  return reads;
}

describe('a standard receive', () => {
  it('reads the data rows of the messages it takes from the head in one batch', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 10; i++) await sendOne(service, 'q', `m${i}`);
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toHaveLength(1);
    const reads = countRowReads(executor);
    const received = await service.receiveMessages('q', { maxMessages: 5 });
    expect(received.map((m) => m.body).sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    // Never received: no state rows to read, and the five data rows in one call.
    expect(reads.batches).toEqual([{ data: 5, state: 0 }]);
    expect(reads.dataGets).toBe(0);
  });

  it('reads the state rows of messages received before in a batch of their own', async () => {
    const { service, executor, scheduler } = makeHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '1' }, tags: {} });
    for (let i = 0; i < 4; i++) await sendOne(service, 'q', `m${i}`);
    expect(await service.receiveMessages('q', { maxMessages: 4 })).toHaveLength(4);
    scheduler.advanceMs(1_500);
    const reads = countRowReads(executor);
    const again = await service.receiveMessages('q', { maxMessages: 4 });
    expect(again.map((m) => m.body).sort()).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(again.every((m) => m.attributes['ApproximateReceiveCount'] === '2')).toBe(true);
    expect(reads.batches).toEqual([
      { data: 4, state: 0 },
      { data: 0, state: 4 },
    ]);
  });
});
