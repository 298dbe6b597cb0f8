/**
 * A delete (or a visibility change) may run twice at once: a follower that lost its leader's answer asks the next leader
 * again while the first leader still tries to commit its attempt. On a FIFO queue the repeat may
 * find the handle expired and refuse it; the refusal must then stand (the first attempt must not
 * delete the message afterwards), or the caller is told "expired" about a message that is gone.
 */
import { describe, expect, it } from 'vitest';
import type { EntryFailure, EntrySuccess } from '../../src/queue/queue-api.js';
import { entry, makeHarness, receiveAll } from './support/queue-harness.js';

const isRefused = (result: EntrySuccess | EntryFailure | undefined): boolean =>
  result !== undefined && 'error' in result;

describe('a FIFO delete or visibility change asked again while its first attempt is uncommitted', () => {
  it('answers the first attempt and the repeat alike: either both delete, or both refuse and the message stays', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true', VisibilityTimeout: '2' }, tags: {} });
    await service.sendMessages('f.fifo', [entry('1', 'body', { messageGroupId: 'g', messageDeduplicationId: 'd' })], {
      senderId: 's',
    });
    const [message] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
    const receiptHandle = message!.receiptHandle;

    // The first attempt is planned while the message is in flight; before it commits, its
    // visibility timeout ends and the repeat runs (as on another leader) and is answered.
    let repeat: Promise<Array<EntrySuccess | EntryFailure>> | undefined;
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      executor.clock.advanceMs(3_000);
      repeat = service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle }]);
      await repeat;
    };
    const [first] = await service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle }]);
    const [second] = (await repeat!) ?? [];

    const left = await receiveAll(service, 'f.fifo');
    const isDeleted = left.length === 0;
    // Whatever the interleaving, no answer may say "refused" for a delete that happened.
    if (isDeleted) expect([isRefused(first), isRefused(second)]).toEqual([false, false]);
    else expect([isRefused(first), isRefused(second)]).toEqual([true, true]);
    // Here the repeat came first and found the handle expired: the message stays, for a new receive.
    expect(isRefused(second)).toBe(true);
    expect(left.map((m) => m.body)).toEqual(['body']);
  });

  it('a visibility change the repeat refuses ("not in flight") is not made afterwards by the first attempt', async () => {
    const { service, executor } = makeHarness();
    await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true', VisibilityTimeout: '2' }, tags: {} });
    await service.sendMessages('f.fifo', [entry('1', 'body', { messageGroupId: 'g', messageDeduplicationId: 'd' })], {
      senderId: 's',
    });
    const [message] = await service.receiveMessages('f.fifo', { maxMessages: 1 });
    const change = { entryId: 'c', receiptHandle: message!.receiptHandle, visibilityTimeoutSeconds: 600 };

    let repeat: Promise<Array<EntrySuccess | EntryFailure>> | undefined;
    executor.beforeCommit = async () => {
      executor.beforeCommit = undefined;
      executor.clock.advanceMs(3_000);
      repeat = service.changeMessageVisibility('f.fifo', [change]);
      await repeat;
    };
    const [first] = await service.changeMessageVisibility('f.fifo', [change]);
    const [second] = (await repeat!) ?? [];

    // The repeat refused: the message must not be hidden for 600 s by the first attempt.
    expect([isRefused(first), isRefused(second)]).toEqual([true, true]);
    expect((await receiveAll(service, 'f.fifo')).map((m) => m.body)).toEqual(['body']);
  });
});
