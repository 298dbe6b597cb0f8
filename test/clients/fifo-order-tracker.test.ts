import { describe, expect, it } from 'vitest';
import { FifoOrderTracker } from './fifo-order-tracker.js';

function trackerWithGroup(): FifoOrderTracker {
  const tracker = new FifoOrderTracker();
  tracker.noteSent({ messageId: 'a', groupId: 'g', sequenceNumber: 64n });
  tracker.noteSent({ messageId: 'b', groupId: 'g', sequenceNumber: 128n });
  return tracker;
}

describe('the FIFO order tracker the client tests use', () => {
  it('reports a later message delivered while an earlier one of its group was not deleted', () => {
    const tracker = trackerWithGroup();
    tracker.noteReceived([{ messageId: 'b', groupId: 'g', sequenceNumber: '128', receiveCount: 1 }]);
    expect(tracker.problems).toEqual(['g: 128 was delivered while 64 was not deleted']);
  });

  it('accepts a later message after the earlier one was deleted, or behind it in the same receive', () => {
    const inOneReceive = trackerWithGroup();
    inOneReceive.noteReceived([
      { messageId: 'a', groupId: 'g', sequenceNumber: '64', receiveCount: 1 },
      { messageId: 'b', groupId: 'g', sequenceNumber: '128', receiveCount: 1 },
    ]);
    expect(inOneReceive.problems).toEqual([]);
    const afterDelete = trackerWithGroup();
    afterDelete.noteReceived([{ messageId: 'a', groupId: 'g', sequenceNumber: '64', receiveCount: 2 }]);
    afterDelete.noteDeleteStarted('a');
    afterDelete.noteReceived([{ messageId: 'b', groupId: 'g', sequenceNumber: '128', receiveCount: 1 }]);
    expect(afterDelete.problems).toEqual([]);
    expect(afterDelete.redeliveries).toBe(1);
  });

  it('reports a delivery whose SequenceNumber differs from the one its send returned', () => {
    const tracker = trackerWithGroup();
    tracker.noteReceived([{ messageId: 'a', groupId: 'g', sequenceNumber: '65', receiveCount: 1 }]);
    expect(tracker.problems).toEqual(['a came back as g/65, sent as g/64']);
  });
});
