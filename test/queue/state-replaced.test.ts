/**
 * A replica that installs a snapshot gets rows it never heard applied. A receive trusts its queue
 * index's "never received" to skip reading a message's state row, so an index that missed a claim
 * made elsewhere would let this replica claim the message a second time: the queue service drops
 * its indexes when it is told the state was replaced (state-upkeep.ts tells it on every install).
 */
import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { ManualScheduler } from './support/manual-scheduler.js';
import { makeHarness, sendOne } from './support/queue-harness.js';
import type { HookedTxnExecutor } from './support/hooked-txn-executor.js';

/** Another node's queue layer over the same keyspace (its claims reach the first one only as rows). */
function otherService(executor: HookedTxnExecutor): QueueService {
  return new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler: new ManualScheduler(executor.clock),
    prng: new SeededPrng(2),
    logger: { warn: () => {}, info: () => {} },
  });
}

/** A standard queue whose one message this replica's index holds as never received, not yet visible. */
async function indexedUnreceived() {
  const harness = makeHarness();
  const { service, executor } = harness;
  await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '30', DelaySeconds: '1' }, tags: {} });
  await sendOne(service, 'q', 'once');
  expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
  executor.clock.advanceMs(1_500);
  return harness;
}

/** The next view taken runs `during` before its taker gets it. */
function onNextView(executor: HookedTxnExecutor, during: () => Promise<void>): void {
  executor.afterReadView = async () => {
    executor.afterReadView = undefined;
    await during();
  };
}

describe('a replica whose state was replaced', () => {
  it('does not claim a message that was claimed in rows it got without hearing of them', async () => {
    const { service, executor } = await indexedUnreceived();
    await service.createQueue({ name: 'side', attributes: {}, tags: {} });
    // The claim arrives as a snapshot would bring it: applied, but not heard by this replica's index.
    executor.silentCommitsCount = 1;
    expect((await otherService(executor).receiveMessages('q', { maxMessages: 10 })).map((m) => m.body)).toEqual([
      'once',
    ]);
    service.stateReplaced();
    // A write heard while the receive plans: the index counts as current for its view.
    onNextView(executor, async () => void (await sendOne(service, 'side', 'heard')));
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
  });
});
