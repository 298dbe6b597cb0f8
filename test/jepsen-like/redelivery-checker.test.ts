import { describe, expect, it } from 'vitest';
import { checkRedelivery } from '../../jepsen-like/checkers/redelivery-checker.js';
import { HistoryBuilder } from './history-builder.js';

describe('redelivery checker', () => {
  it('passes deliveries that were deleted, and an abandoned one that came back', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .send(0, 'b', 2, 'ok')
      .receive(
        1,
        [
          { body: 'a', handle: 'ha', receiveCount: 1 },
          { body: 'b', handle: 'hb1', receiveCount: 1 },
        ],
        10,
        20,
      )
      .delete(1, 'a', 'ha', 30, 40)
      .receive(2, [{ body: 'b', handle: 'hb2', receiveCount: 2 }], 40_000, 40_010)
      .delete(2, 'b', 'hb2', 40_020, 40_030);
    const result = checkRedelivery(h.pairs());
    expect(result.valid).toBe(true);
    expect(result.deliveriesChecked).toBe(3);
  });

  it('fails a delivery that was never deleted and never came back (a state rolled back, or a message dropped)', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'ha', receiveCount: 1 }], 10, 20);
    const result = checkRedelivery(h.pairs());
    expect(result.valid).toBe(false);
    expect(result.undeletedNotRedelivered).toEqual([{ messageId: 'id-a', body: 'a', receiveInvokeIndex: 2 }]);
  });

  it('fails a delivery whose delete definitely failed and that never came back', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'ha' }], 10, 20)
      .delete(1, 'a', 'ha', 30, 40, 'fail');
    expect(checkRedelivery(h.pairs()).undeletedNotRedeliveredCount).toBe(1);
  });

  it('gives the benefit of the doubt to a delete whose outcome is unknown', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'ha' }], 10, 20)
      .delete(1, 'a', 'ha', 30, 40, 'info');
    expect(checkRedelivery(h.pairs()).valid).toBe(true);
  });

  it('does not let a delete that completed before the delivery excuse it', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1', receiveCount: 1 }], 10, 20)
      .delete(1, 'a', 'h1', 30, 40)
      .receive(2, [{ body: 'a', handle: 'h2', receiveCount: 2 }], 50, 60);
    expect(checkRedelivery(h.pairs()).undeletedNotRedelivered.map((u) => u.receiveInvokeIndex)).toEqual([6]);
  });

  it('understands batch deletes', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .send(0, 'b', 2, 'ok')
      .receive(
        1,
        [
          { body: 'a', handle: 'ha' },
          { body: 'b', handle: 'hb' },
        ],
        10,
        20,
      )
      .op({
        process: 1,
        f: 'delete-batch',
        value: {
          queue: 'q',
          entries: [
            { queue: 'q', body: 'a', messageId: 'id-a', receiptHandle: 'ha' },
            { queue: 'q', body: 'b', messageId: 'id-b', receiptHandle: 'hb' },
          ],
        },
        fromMs: 30,
        toMs: 40,
        outcome: 'ok',
        result: { entries: [{ ok: {} }, { failed: { code: 'ReceiptHandleIsInvalid', senderFault: true } }] },
      });
    const result = checkRedelivery(h.pairs());
    expect(result.undeletedNotRedelivered.map((u) => u.body)).toEqual(['b']);
  });

  it('fails when ApproximateReceiveCount does not rise between deliveries in real-time order', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1', receiveCount: 1 }], 10, 20)
      .receive(2, [{ body: 'a', handle: 'h2', receiveCount: 1 }], 40_000, 40_010)
      .delete(2, 'a', 'h2', 40_020, 40_030);
    const result = checkRedelivery(h.pairs());
    expect(result.valid).toBe(false);
    expect(result.receiveCountStalls[0]).toMatchObject({ earlierReceiveCount: 1, laterReceiveCount: 1 });
  });

  it('lets the count jump (receives whose answers were lost count too), and ignores concurrent receives', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1', receiveCount: 2 }], 10, 50)
      .receive(2, [{ body: 'a', handle: 'h2', receiveCount: 1 }], 20, 30)
      .receive(3, [{ body: 'a', handle: 'h3', receiveCount: 5 }], 40_000, 40_010)
      .delete(3, 'a', 'h3', 40_020, 40_030);
    expect(checkRedelivery(h.pairs()).receiveCountStallCount).toBe(0);
  });
});
