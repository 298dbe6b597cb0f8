/**
 * A node answers from its own replica, which may lag the leader. An answer that writes nothing
 * never reaches the apply step, so nothing validates the reads it came from: these tests give the
 * queue layer a view that has not applied the newest commits (as on a lagging follower) and expect
 * the answer to be the one a linearizable view gives.
 */
import { describe, expect, it } from 'vitest';
import { QueueDoesNotExistError } from '../../src/queue/errors.js';
import { ModelTxnExecutor } from './support/model-txn-executor.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

function staleHarness() {
  const harness = makeHarness({ executor: 'model' });
  const executor = harness.executor;
  if (!(executor instanceof ModelTxnExecutor)) throw new Error('expected the model executor');
  return { ...harness, model: executor };
}

describe('answers without writes on a lagging replica', () => {
  it('a delete whose receipt handle the replica has not seen yet still deletes the message', async () => {
    const { service, model } = staleHarness();
    await service.createQueue({ name: 'q', attributes: { VisibilityTimeout: '5' }, tags: {} });
    await sendOne(service, 'q', 'body');
    const beforeReceiveTs = model.latestCommitTs;
    const [message] = await service.receiveMessages('q', { maxMessages: 1 });
    expect(message).toBeDefined();

    // The replica that serves the delete has applied the send but not the receive's claim: on its
    // view the handle's token is not the message's current one, which looks like a stale handle.
    model.staleViewTs = beforeReceiveTs;
    const [result] = await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: message!.receiptHandle }]);
    expect(result).toEqual({ entryId: 'd' });
    model.staleViewTs = undefined;

    model.clock.advanceMs(6_000);
    expect(await service.receiveMessages('q', { maxMessages: 10 })).toEqual([]);
  });

  it('a queue created a moment ago is found by a replica that has not applied its creation', async () => {
    const { service, model } = staleHarness();
    const beforeCreateTs = model.latestCommitTs;
    await service.createQueue({ name: 'fresh', attributes: {}, tags: {} });
    model.staleViewTs = beforeCreateTs;
    await service.setQueueAttributes('fresh', { VisibilityTimeout: '7' });
    model.staleViewTs = undefined;
    expect(await service.getQueueAttributes('fresh', ['VisibilityTimeout'])).toEqual({ VisibilityTimeout: '7' });
  });

  it('a queue deleted a moment ago is gone for a replica that still has it, so its name can be reused', async () => {
    const { service, model } = staleHarness();
    await service.createQueue({ name: 'reused', attributes: { VisibilityTimeout: '3' }, tags: {} });
    const beforeDeleteTs = model.latestCommitTs;
    await service.deleteQueue('reused');
    model.staleViewTs = beforeDeleteTs;
    await service.createQueue({ name: 'reused', attributes: { VisibilityTimeout: '9' }, tags: {} });
    model.staleViewTs = undefined;
    expect(await service.getQueueAttributes('reused', ['VisibilityTimeout'])).toEqual({ VisibilityTimeout: '9' });
    await expect(service.getQueueName('missing')).rejects.toBeInstanceOf(QueueDoesNotExistError);
  });
});
