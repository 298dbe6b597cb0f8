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

/**
 * Before the next commit (or, with `isEveryCommit`, before every one), a visibility change of the
 * message commits first: an attempt that read the message's rows then conflicts.
 */
function changeVisibilityBeforeCommit(
  { service, executor, handle }: Harness & { handle: string },
  isEveryCommit: boolean,
): void {
  let isDone = false;
  let isStaging = false;
  executor.beforeCommit = async () => {
    if (isStaging || isDone) return;
    isStaging = true;
    await service.changeMessageVisibility('q', [{ entryId: 'c', receiptHandle: handle, visibilityTimeoutSeconds: 60 }]);
    isStaging = false;
    isDone = !isEveryCommit;
  };
}

describe('transaction retries by operation and reason', () => {
  it('counts nothing while every attempt settles', async () => {
    const { service, handle } = await withReceivedMessage();
    await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    expect(service.txnRetries()).toEqual([]);
  });

  it('a delete that loses to a visibility change counts one DeleteMessage conflict, and still deletes', async () => {
    const harness = await withReceivedMessage();
    const { service, executor, handle } = harness;
    changeVisibilityBeforeCommit(harness, false);
    const [outcome] = await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: handle }]);
    executor.beforeCommit = undefined;
    expect(outcome).toEqual({ entryId: 'd' });
    expect(service.txnRetries()).toEqual([{ operation: 'DeleteMessage', reason: 'conflict', count: 1 }]);
    expect(await service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 0 })).toEqual([]);
  });

  it('an operation that runs out of attempts counts only the attempts built again, not the last one', async () => {
    const harness = await withReceivedMessage();
    const { service, executor, handle } = harness;
    changeVisibilityBeforeCommit(harness, true);
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
