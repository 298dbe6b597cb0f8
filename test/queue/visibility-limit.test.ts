/**
 * AWS: a message's visibility can be extended to at most 12 hours after it was received, counted
 * in whole seconds.
 */
import { describe, expect, it } from 'vitest';
import { InvalidParameterValueError } from '../../src/queue/errors.js';
import { makeHarness, sendOne } from './support/queue-harness.js';

async function receivedMessage() {
  const harness = makeHarness();
  await harness.service.createQueue({ name: 'q', attributes: {}, tags: {} });
  await sendOne(harness.service, 'q', 'body');
  const [message] = await harness.service.receiveMessages('q', { maxMessages: 1 });
  if (message === undefined) throw new Error('no message received');
  return { ...harness, message };
}

describe('ChangeMessageVisibility and the 12-hour ceiling', () => {
  it('accepts 43200 seconds within the second of the receive', async () => {
    const { service, executor, message } = await receivedMessage();
    executor.clock.advanceMs(400);
    const [result] = await service.changeMessageVisibility('q', [
      { entryId: 'c', receiptHandle: message.receiptHandle, visibilityTimeoutSeconds: 43_200 },
    ]);
    expect(result).toEqual({ entryId: 'c' });
  });

  it('refuses a timeout that would end more than 12 hours after the receive', async () => {
    const { service, executor, message } = await receivedMessage();
    executor.clock.advanceMs(10_000);
    const [result] = await service.changeMessageVisibility('q', [
      { entryId: 'c', receiptHandle: message.receiptHandle, visibilityTimeoutSeconds: 43_191 },
    ]);
    expect(result !== undefined && 'error' in result && result.error).toBeInstanceOf(InvalidParameterValueError);
    const [atLimit] = await service.changeMessageVisibility('q', [
      { entryId: 'd', receiptHandle: message.receiptHandle, visibilityTimeoutSeconds: 43_190 },
    ]);
    expect(atLimit).toEqual({ entryId: 'd' });
  });
});
