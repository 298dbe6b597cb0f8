/**
 * Receives on different nodes race for the head of a queue; each loser re-reads and tries again,
 * a bounded number of times. A receive that loses every race has found nothing it could take: it
 * answers empty, which a consumer simply repeats, rather than failing the request.
 */
import { describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { entry, makeHarness } from './support/queue-harness.js';

describe('a receive that loses every race for the head of the queue', () => {
  it('answers empty instead of an error, and the messages stay available', async () => {
    const { service, executor } = makeHarness({ executor: 'model' });
    await service.createQueue({ name: 'q', attributes: {}, tags: {} });
    await service.sendMessages(
      'q',
      Array.from({ length: 3 }, (_, i) => entry(`e${i}`, `m${i}`)),
      { senderId: 's' },
    );

    // Before every commit of the receive, a rival rewrites a key the receive read (as a receive on
    // another node that claimed first would), so every attempt conflicts.
    let isRivalCommitting = false;
    let rivalCommits = 0;
    executor.beforeCommit = async (txn) => {
      if (isRivalCommitting) return;
      const key = txn.readKeys[0];
      if (key === undefined) return;
      isRivalCommitting = true;
      try {
        const view = await executor.readView({ linearizable: true });
        const value = await view.get(key);
        view.release();
        if (value !== undefined) {
          await executor.commit({
            txnId: `rival-${rivalCommits++}`,
            startTsUs: view.ts,
            nowMs: executor.nowMs(),
            readKeys: [],
            writes: [{ kind: 'put', key, value }],
          });
        }
      } finally {
        isRivalCommitting = false;
      }
    };
    const messages = await service.receiveMessages('q', { maxMessages: 10, waitTimeSeconds: 0 });
    expect(messages).toEqual([]);
    expect(executor.conflicts).toBeGreaterThanOrEqual(raftqLimits.queueTxnAttemptsMax.value);

    executor.beforeCommit = undefined;
    expect(await service.receiveMessages('q', { maxMessages: 10, waitTimeSeconds: 0 })).toHaveLength(3);
  });
});
