import { describe, expect, it } from 'vitest';
import { makeHarness, entry } from './support/queue-harness.js';

describe('FIFO SequenceNumber format', () => {
  it('is 20 decimal digits, as AWS returns it, so string order is numeric order', async () => {
    const { service } = makeHarness();
    await service.createQueue({
      name: 'q.fifo',
      attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      tags: {},
    });
    const sequenceNumbers: string[] = [];
    for (let i = 0; i < 12; i++) {
      const [result] = await service.sendMessages('q.fifo', [entry('e', `body-${i}`, { messageGroupId: 'g' })], {
        senderId: 't',
      });
      if (result === undefined || 'error' in result || result.sequenceNumber === undefined)
        throw new Error('send failed');
      sequenceNumbers.push(result.sequenceNumber);
    }
    for (const s of sequenceNumbers) expect(s).toMatch(/^\d{20}$/);
    expect([...sequenceNumbers].sort()).toEqual(sequenceNumbers);
    expect(new Set(sequenceNumbers).size).toBe(sequenceNumbers.length);
  });
});
