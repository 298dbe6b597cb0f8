// Transaction attempts built again are counted by operation and reason (raftq_queue_txn_retries_total):
// a conflict staged between a delete's plan and its commit, and a stale receipt handle's no-op
// delete, whose answer is derived again on a linearizable view.
import { describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { TxnRetriesExhaustedError } from '../../src/queue/errors.js';
import { makeHarness, sendOne, type Harness } from './support/queue-harness.js';

/** A harness whose queue 'q' holds one message, received: returns its receipt handle too. */
async function withReceivedMessage(): Promise<Harness & { handle: string }> {
  const harness = makeHarness();
  const { service } = harness;
  await service.createQueue({ name: 'q', attributes: {}, tags: {} });
  await sendOne(service, 'q', 'a');
  const [message] = await service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 0 });
  if (message === undefined) throw new Error('nothing received');
  return { ...harness, handle: message.receiptHandle };
}

describe('transaction retries by operation and reason', () => {
  it('counts nothing while every attempt settles', async () => {
    const { service, handle } = await withReceivedMessage();
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    expect(service.txnRetries()).toEqual([]);
  });

  it('a delete that loses to a visibility change counts one DeleteMessage conflict, and still deletes', async () => {
    const { service, executor, handle } = await withReceivedMessage();
    let isStaged = false;
    executor.beforeCommit = async () => {
      if (isStaged) return;
      isStaged = true;
      await service.changeMessageVisibility('q', [
        { entryId: 'c', receiptHandle: handle, visibilityTimeoutSeconds: 60 },
      ]);
    };
    const [outcome] = await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    executor.beforeCommit = undefined;
    expect(outcome).toEqual({ entryId: 'd' });
    expect(service.txnRetries()).toEqual([{ operation: 'DeleteMessage', reason: 'conflict', count: 1 }]);
    expect(await service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 0 })).toEqual([]);
  });

  it('an operation that runs out of attempts counts only the attempts built again, not the last one', async () => {
    const { service, executor, handle } = await withReceivedMessage();
    let isStaging = false;
    // Before every commit of the delete, a visibility change of the same message commits first.
    executor.beforeCommit = async () => {
      if (isStaging) return;
      isStaging = true;
      await service.changeMessageVisibility('q', [
        { entryId: 'c', receiptHandle: handle, visibilityTimeoutSeconds: 60 },
      ]);
      isStaging = false;
    };
    await expect(service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }])).rejects.toBeInstanceOf(
      TxnRetriesExhaustedError,
    );
    executor.beforeCommit = undefined;
    const attemptsMax = raftqLimits.queueTxnAttemptsMax.value;
    expect(service.txnRetries()).toEqual([{ operation: 'DeleteMessage', reason: 'conflict', count: attemptsMax - 1 }]);
  });

  it('a second delete of the same handle is a no-op derived again on a linearizable view: one stale-answer', async () => {
    const { service, handle } = await withReceivedMessage();
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    expect(service.txnRetries()).toEqual([{ operation: 'DeleteMessage', reason: 'stale-answer', count: 2 }]);
  });
});
