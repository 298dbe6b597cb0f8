import { setImmediate as drainMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { QueueDoesNotExistError } from '../../src/queue/errors.js';
import { makeHarness, sendOne, type Harness } from './support/queue-harness.js';

/** Lets pending promise chains run until the long poll has parked (bounded: no sleeping). */
async function untilParked(harness: Harness, waiting = 1): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (harness.service.waitingReceiveCount >= waiting && harness.scheduler.pendingCount >= waiting) return;
    await drainMacrotask();
  }
  throw new Error('the long poll never parked');
}

async function withQueue(attributes: Record<string, string> = {}) {
  const harness = makeHarness();
  await harness.service.createQueue({ name: 'q', attributes, tags: {} });
  return harness;
}

describe('long polling', () => {
  it('a parked long poll is woken by a send and does not re-scan while nothing happens', async () => {
    const harness = await withQueue();
    const { service, executor } = harness;
    const listenersBefore = executor.listenerCount;
    const poll = service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    const viewsWhileParked = executor.viewCount;
    for (let i = 0; i < 20; i++) await drainMacrotask();
    expect(executor.viewCount).toBe(viewsWhileParked);
    await sendOne(service, 'q', 'wake up');
    const messages = await poll;
    expect(messages.map((m) => m.body)).toEqual(['wake up']);
    expect(executor.viewCount - viewsWhileParked).toBeLessThanOrEqual(3);
    expect(executor.listenerCount).toBe(listenersBefore);
  });

  it('a long poll with nothing to deliver ends empty at its wait time and leaves no listener or timer behind', async () => {
    const harness = await withQueue();
    const listenersBefore = harness.executor.listenerCount;
    const poll = harness.service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    harness.scheduler.advanceMs(19_999);
    harness.scheduler.advanceMs(1);
    expect(await poll).toEqual([]);
    expect(harness.executor.listenerCount).toBe(listenersBefore);
    expect(harness.scheduler.pendingCount).toBe(0);
    expect(harness.service.waitingReceiveCount).toBe(0);
  });

  it("the queue's ReceiveMessageWaitTimeSeconds makes a receive without WaitTimeSeconds a long poll", async () => {
    const harness = await withQueue({ ReceiveMessageWaitTimeSeconds: '5' });
    const poll = harness.service.receiveMessages('q', { maxMessages: 1 });
    await untilParked(harness);
    await sendOne(harness.service, 'q', 'via queue default');
    expect((await poll).map((m) => m.body)).toEqual(['via queue default']);
  });

  it('a delayed message wakes the long poll by a timer at its visible time, with no write in between', async () => {
    const harness = await withQueue();
    await sendOne(harness.service, 'q', 'later', { delaySeconds: 7 });
    const poll = harness.service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    const commits = harness.executor.commits.length;
    harness.scheduler.advanceMs(7_000);
    expect((await poll).map((m) => m.body)).toEqual(['later']);
    expect(harness.executor.commits.length).toBe(commits + 1);
  });

  it('an aborted long poll answers empty at once', async () => {
    const harness = await withQueue();
    const controller = new AbortController();
    const poll = harness.service.receiveMessages('q', {
      maxMessages: 1,
      waitTimeSeconds: 20,
      signal: controller.signal,
    });
    await untilParked(harness);
    controller.abort();
    expect(await poll).toEqual([]);
    expect(harness.service.waitingReceiveCount).toBe(0);
  });

  it('a long poll across a purge re-reads the generation and delivers from the new one with a working handle (trap 3)', async () => {
    const harness = await withQueue();
    const { service } = harness;
    const poll = service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    await service.purgeQueue('q');
    await sendOne(service, 'q', 'new generation');
    const [message] = await poll;
    expect(message?.body).toBe('new generation');
    expect(await service.deleteMessages('q', [{ entryId: 'd', receiptHandle: message?.receiptHandle ?? '' }])).toEqual([
      { entryId: 'd' },
    ]);
  });

  it('a long poll on a queue that is deleted ends with QueueDoesNotExist instead of waiting on (trap 3)', async () => {
    const harness = await withQueue();
    const poll = harness.service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    await harness.service.deleteQueue('q');
    await expect(poll).rejects.toBeInstanceOf(QueueDoesNotExistError);
  });

  it('closing the service ends parked long polls empty', async () => {
    const harness = await withQueue();
    const poll = harness.service.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    harness.service.close();
    expect(await poll).toEqual([]);
  });

  it('a long poll on a FIFO queue whose only group is locked wakes when the head is deleted and gets the successor', async () => {
    const harness = makeHarness();
    const { service } = harness;
    await service.createQueue({
      name: 'f.fifo',
      attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      tags: {},
    });
    await sendOne(service, 'f.fifo', 'head', { messageGroupId: 'g' });
    await sendOne(service, 'f.fifo', 'next', { messageGroupId: 'g' });
    const [head] = await service.receiveMessages('f.fifo', { maxMessages: 1, visibilityTimeoutSeconds: 300 });
    const poll = service.receiveMessages('f.fifo', { maxMessages: 1, waitTimeSeconds: 20 });
    await untilParked(harness);
    await service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle: head?.receiptHandle ?? '' }]);
    expect((await poll).map((m) => m.body)).toEqual(['next']);
  });
});
