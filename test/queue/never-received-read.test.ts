/**
 * A message the queue index knows was never received has no state row, so a receive skips the
 * read of it (a LevelDB seek for a key that is not there, once per consumed message). The index
 * may trust its "never received" for a view only once it has heard every batch the view holds:
 * the executor tells it each applied batch's commit timestamp (TxnExecutor.onApplied), and a view
 * at or below the last one heard holds nothing the index missed.
 */
import { describe, expect, it } from 'vitest';
import { classifyStateKey } from '../../src/queue/layout/key-family.js';
import type { ReadView } from '../../src/storage/txn.js';
import type { HookedTxnExecutor } from './support/hooked-txn-executor.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

/** Counts the reads of state rows made through every view the executor hands out from now on. */
function countStateRowReads(executor: HookedTxnExecutor): { count: number } {
  const counter = { count: 0 };
  const readView = executor.readView.bind(executor);
  executor.readView = async (options) => {
    const view = await readView(options);
    const counted: ReadView = {
      ts: view.ts,
      get: (key) => {
        if (classifyStateKey(key).family === 'state') counter.count++;
        return view.get(key);
      },
      getMany: (keys) => {
        counter.count += keys.filter((key) => classifyStateKey(key).family === 'state').length;
        return view.getMany(keys);
      },
      scan: (range, scanOptions) => view.scan(range, scanOptions),
      release: () => view.release(),
    };
    return counted;
  };
  return counter;
}

describe('the receive of a message never received', () => {
  it('reads no state row when the index has heard every batch of the view', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 10; i++) await sendOne(service, 'q', `m${i}`);
    // The first receive builds the index; the second is served by it with nothing applied in between.
    expect(await service.receiveMessages('q', { maxMessages: 5 })).toHaveLength(5);
    const stateReads = countStateRowReads(executor);
    const received = await service.receiveMessages('q', { maxMessages: 5 });
    expect(received.map((m) => m.body).sort()).toEqual(['m5', 'm6', 'm7', 'm8', 'm9']);
    expect(stateReads.count).toBe(0);
  });

  it('reads the state row when the view holds a batch the index has not heard of yet', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    for (let i = 0; i < 3; i++) await sendOne(service, 'q', `m${i}`);
    expect(await service.receiveMessages('q', { maxMessages: 1 })).toHaveLength(1);
    // A commit applied without telling the listeners: views include it, the index has not heard it.
    executor.silentCommitsCount = 1;
    await sendOne(service, 'q', 'unheard');
    const stateReads = countStateRowReads(executor);
    expect(await service.receiveMessages('q', { maxMessages: 2 })).toHaveLength(2);
    expect(stateReads.count).toBe(2);
  });
});
