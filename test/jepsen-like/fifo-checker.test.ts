import { describe, expect, it } from 'vitest';
import { checkFifo } from '../../jepsen-like/checkers/fifo-checker.js';
import { HistoryBuilder } from './history-builder.js';

const opts = { clockAllowanceMs: 1_000 };

function sentGroup(h: HistoryBuilder, group: string, count: number, seqBase = 0): HistoryBuilder {
  // One sending process per group, so that groups sent at the same times do not overlap in one process.
  const process = 100 + group.charCodeAt(0);
  for (let i = 1; i <= count; i++)
    h.send(process, `${group}${i}`, i * 10, 'ok', {
      groupId: group,
      dedupId: `${group}${i}`,
      sequenceNumber: String(seqBase + i * 100),
    });
  return h;
}

describe('FIFO checker', () => {
  it('passes a group received in order, one message at a time, each deleted before the next', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 3);
    let t = 1_000;
    for (let i = 1; i <= 3; i++) {
      h.receive(1, [{ body: `g${i}`, seq: String(i * 100), groupId: 'g', handle: `h${i}` }], t, t + 5);
      h.delete(1, `g${i}`, `h${i}`, t + 10, t + 15);
      t += 100;
    }
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(true);
    expect(result.groups).toBe(1);
  });

  it('passes one receive that returns several messages of a group in order', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2).receive(
      1,
      [
        { body: 'g1', seq: '100', groupId: 'g' },
        { body: 'g2', seq: '200', groupId: 'g' },
      ],
      1_000,
      1_005,
    );
    expect(checkFifo(h.pairs(), opts).valid).toBe(true);
  });

  it('fails when a group is delivered out of order', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2).receive(
      1,
      [{ body: 'g2', seq: '200', groupId: 'g' }],
      1_000,
      1_005,
    );
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.orderViolations[0]).toMatchObject({
      kind: 'out-of-order',
      deliveredSequenceNumber: '200',
      earlierSequenceNumber: '100',
    });
  });

  it("fails when one receive returns a group's messages in the wrong order", () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2).receive(
      1,
      [
        { body: 'g2', seq: '200', groupId: 'g' },
        { body: 'g1', seq: '100', groupId: 'g' },
      ],
      1_000,
      1_005,
    );
    expect(checkFifo(h.pairs(), opts).valid).toBe(false);
  });

  it("fails when a group's message is delivered while an earlier one is in flight", () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2)
      .receive(1, [{ body: 'g1', seq: '100', groupId: 'g' }], 1_000, 1_005)
      .receive(2, [{ body: 'g2', seq: '200', groupId: 'g' }], 2_000, 2_005);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.orderViolations[0]?.kind).toBe('delivered-while-in-flight');
  });

  it('says when the skipped message was held by a receive whose answer was lost', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2)
      .receive(1, [], 900, 5_000, { outcome: 'info' })
      .receive(2, [{ body: 'g2', seq: '200', groupId: 'g', receiveCount: 1 }], 2_000, 2_005)
      .receive(3, [{ body: 'g1', seq: '100', groupId: 'g', receiveCount: 2 }], 40_000, 40_005);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.orderViolations[0]).toMatchObject({ kind: 'out-of-order', isEarlierHeldByLostReceive: true });
  });

  it("does not blame the queue when the earlier message's delete raced with the next receive", () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 2)
      .receive(1, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h1' }], 1_000, 1_005)
      .delete(1, 'g1', 'h1', 2_000, 2_010, 'info')
      .receive(2, [{ body: 'g2', seq: '200', groupId: 'g' }], 2_001, 2_005);
    expect(checkFifo(h.pairs(), opts).valid).toBe(true);
  });

  it('keeps groups independent', () => {
    const h = sentGroup(sentGroup(new HistoryBuilder(), 'a', 1), 'b', 1, 50)
      .receive(1, [{ body: 'b1', seq: '150', groupId: 'b' }], 1_000, 1_005)
      .receive(2, [{ body: 'a1', seq: '100', groupId: 'a' }], 1_001, 1_006);
    expect(checkFifo(h.pairs(), opts).valid).toBe(true);
  });

  it('treats a skipped message whose send outcome was unknown as a gap once it is seen', () => {
    const h = new HistoryBuilder()
      .send(0, 'g1', 10, 'info', { groupId: 'g', dedupId: 'g1' })
      .send(1, 'g2', 20, 'ok', { groupId: 'g', dedupId: 'g2', sequenceNumber: '200' })
      .receive(2, [{ body: 'g2', seq: '200', groupId: 'g', handle: 'h2' }], 1_000, 1_005)
      .delete(2, 'g2', 'h2', 1_010, 1_015)
      .receive(2, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h1' }], 1_100, 1_105);
    expect(checkFifo(h.pairs(), opts).valid).toBe(false);
  });

  it('fails when two sends with one deduplication id become two messages', () => {
    const h = new HistoryBuilder()
      .send(0, 'x', 10, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm1', sequenceNumber: '100' })
      .send(0, 'x', 20, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm2', sequenceNumber: '200' })
      .receive(1, [{ body: 'x', messageId: 'm1', seq: '100', groupId: 'g', handle: 'h1' }], 1_000, 1_005)
      .delete(1, 'x', 'h1', 1_010, 1_015, 'ok', { messageId: 'm1' })
      .receive(1, [{ body: 'x', messageId: 'm2', seq: '200', groupId: 'g', handle: 'h2' }], 1_100, 1_105);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.dedupViolations).toEqual([{ dedupId: 'd', messageIds: ['m1', 'm2'] }]);
  });

  it('passes a deduplicated re-send delivered once, whatever message id its send answered', () => {
    const h = new HistoryBuilder()
      .send(0, 'x', 10, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm1', sequenceNumber: '100' })
      .send(0, 'x', 20, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm9', sequenceNumber: '900' })
      .receive(1, [{ body: 'x', messageId: 'm1', seq: '100', groupId: 'g' }], 1_000, 1_005);
    expect(checkFifo(h.pairs(), opts).valid).toBe(true);
  });

  it('passes a re-send made after the deduplication window that becomes a second message', () => {
    const h = new HistoryBuilder()
      .send(0, 'x', 10, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm1', sequenceNumber: '100' })
      .receive(1, [{ body: 'x', messageId: 'm1', seq: '100', groupId: 'g', handle: 'h1' }], 1_000, 1_005)
      .delete(1, 'x', 'h1', 1_010, 1_015, 'ok', { messageId: 'm1' })
      .send(0, 'x', 400_000, 'ok', { groupId: 'g', dedupId: 'd', messageId: 'm2', sequenceNumber: '200' })
      .receive(1, [{ body: 'x', messageId: 'm2', seq: '200', groupId: 'g', handle: 'h2' }], 400_100, 400_105);
    expect(checkFifo(h.pairs(), opts).dedupViolations).toEqual([]);
  });

  it('fails when a FIFO message is delivered again after it was definitely deleted', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 1)
      .receive(1, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h1' }], 1_000, 1_005)
      .delete(1, 'g1', 'h1', 1_010, 1_015)
      .receive(2, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h2' }], 60_000, 60_005);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.deliveredAfterDeleteCount).toBe(1);
  });

  it('fails when two messages of a queue carry one SequenceNumber, even in different groups', () => {
    const h = sentGroup(sentGroup(new HistoryBuilder(), 'a', 1), 'b', 1)
      .receive(1, [{ body: 'a1', seq: '100', groupId: 'a' }], 1_000, 1_005)
      .receive(2, [{ body: 'b1', seq: '100', groupId: 'b' }], 1_001, 1_006);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.sequenceViolations).toContainEqual({
      kind: 'duplicate-sequence-number',
      sequenceNumbers: ['100'],
      messageIds: ['id-a1', 'id-b1'],
    });
  });

  it('fails when two messages of one group share a SequenceNumber (the order check never compares equal numbers)', () => {
    const h = new HistoryBuilder()
      .send(0, 'g1', 10, 'ok', { groupId: 'g', dedupId: 'g1', sequenceNumber: '100' })
      .send(0, 'g2', 20, 'ok', { groupId: 'g', dedupId: 'g2', sequenceNumber: '100' })
      .receive(1, [{ body: 'g2', seq: '100', groupId: 'g' }], 1_000, 1_005);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.orderViolationCount).toBe(0);
    expect(result.sequenceViolations[0]?.kind).toBe('duplicate-sequence-number');
  });

  it('fails when a message is delivered with another SequenceNumber than its send answered', () => {
    const h = sentGroup(new HistoryBuilder(), 'g', 1).receive(
      1,
      [{ body: 'g1', seq: '101', groupId: 'g' }],
      1_000,
      1_005,
    );
    expect(checkFifo(h.pairs(), opts).sequenceViolations).toEqual([
      { kind: 'sequence-number-changed', sequenceNumbers: ['101', '100'], messageIds: ['id-g1'] },
    ]);
  });

  it("fails when a group's SequenceNumbers go against real-time send order", () => {
    // g1's send completed (at 11) before g2's was invoked (at 20), yet g2 has the smaller number.
    const h = new HistoryBuilder()
      .send(0, 'g1', 10, 'ok', { groupId: 'g', dedupId: 'g1', sequenceNumber: '200' })
      .send(0, 'g2', 20, 'ok', { groupId: 'g', dedupId: 'g2', sequenceNumber: '100' });
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.sequenceViolations).toEqual([
      { kind: 'send-order', groupId: 'g', sequenceNumbers: ['200', '100'], messageIds: ['id-g1', 'id-g2'] },
    ]);
  });

  it('passes concurrent sends of one group numbered either way, and sends of different groups', () => {
    const h = new HistoryBuilder()
      .send(0, 'g1', 10, 'ok', { groupId: 'g', dedupId: 'g1', sequenceNumber: '200', toMs: 30 })
      .send(1, 'g2', 20, 'ok', { groupId: 'g', dedupId: 'g2', sequenceNumber: '100', toMs: 25 })
      .send(0, 'h1', 40, 'ok', { groupId: 'h', dedupId: 'h1', sequenceNumber: '300' })
      .send(0, 'k1', 50, 'ok', { groupId: 'k', dedupId: 'k1', sequenceNumber: '250' });
    expect(checkFifo(h.pairs(), opts).sequenceViolations).toEqual([]);
  });

  it('uses delivered SequenceNumbers for sends whose outcome was unknown', () => {
    // g2's send was info, but its message was delivered with number 100, below g1's, sent wholly before.
    const h = new HistoryBuilder()
      .send(0, 'g1', 10, 'ok', { groupId: 'g', dedupId: 'g1', sequenceNumber: '200' })
      .send(1, 'g2', 20, 'info', { groupId: 'g', dedupId: 'g2' })
      .receive(2, [{ body: 'g2', seq: '100', groupId: 'g', handle: 'h2' }], 1_000, 1_005)
      .delete(2, 'g2', 'h2', 1_010, 1_015)
      .receive(2, [{ body: 'g1', seq: '200', groupId: 'g', handle: 'h1' }], 1_100, 1_105);
    expect(checkFifo(h.pairs(), opts).sequenceViolations.map((v) => v.kind)).toEqual(['send-order']);
  });

  it('does not let a delete excuse an earlier message that is delivered again after the receive', () => {
    // g1's delete (info) was invoked before the receive of g2 completed, which used to excuse g1
    // for good; but g1 comes back later, so it was never deleted: g2 skipped it.
    const h = sentGroup(new HistoryBuilder(), 'g', 2)
      .receive(1, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h1' }], 1_000, 1_005, {
        visibilityTimeoutSeconds: 1,
      })
      .delete(1, 'g1', 'h1', 2_000, 2_010, 'info')
      .receive(2, [{ body: 'g2', seq: '200', groupId: 'g', handle: 'h2' }], 2_001, 2_005)
      .receive(3, [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h3' }], 40_000, 40_005);
    const result = checkFifo(h.pairs(), opts);
    expect(result.valid).toBe(false);
    expect(result.orderViolations[0]).toMatchObject({
      kind: 'out-of-order',
      deliveredSequenceNumber: '200',
      earlierSequenceNumber: '100',
    });
  });

  it('accounts for ChangeMessageVisibility: a message released early was skipped, not in flight', () => {
    const history = (releaseSeconds: number | undefined): HistoryBuilder => {
      const h = sentGroup(new HistoryBuilder(), 'g', 2).receive(
        1,
        [{ body: 'g1', seq: '100', groupId: 'g', handle: 'h1' }],
        1_000,
        1_005,
      );
      if (releaseSeconds !== undefined) {
        h.op({
          process: 1,
          f: 'change-visibility',
          value: {
            queue: 'q',
            body: 'g1',
            messageId: 'id-g1',
            receiptHandle: 'h1',
            visibilityTimeoutSeconds: releaseSeconds,
          },
          fromMs: 1_100,
          toMs: 1_110,
          outcome: 'ok',
          result: {},
        });
      }
      return h.receive(2, [{ body: 'g2', seq: '200', groupId: 'g', handle: 'h2' }], 2_000, 2_005);
    };
    expect(checkFifo(history(undefined).pairs(), opts).orderViolations.map((v) => v.kind)).toEqual([
      'delivered-while-in-flight',
    ]);
    expect(checkFifo(history(0).pairs(), opts).orderViolations.map((v) => v.kind)).toEqual(['out-of-order']);
  });
});
