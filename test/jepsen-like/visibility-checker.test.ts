import { describe, expect, it } from 'vitest';
import { checkVisibility } from '../../jepsen-like/checkers/visibility-checker.js';
import { HistoryBuilder } from './history-builder.js';

describe('visibility checker', () => {
  it("fails when a second consumer receives a message within the first one's visibility timeout", () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a' }], 10, 20)
      .receive(2, [{ body: 'a' }], 1_000, 1_010);
    const result = checkVisibility(h.pairs(), { clockAllowanceMs: 1_000 });
    expect(result.valid).toBe(false);
    expect(result.secondDeliveries[0]).toMatchObject({ messageId: 'id-a', visibilityTimeoutMs: 30_000 });
  });

  it('passes a redelivery after the visibility timeout ran out', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a' }], 10, 20)
      .receive(2, [{ body: 'a' }], 31_000, 31_010);
    expect(checkVisibility(h.pairs(), { clockAllowanceMs: 0 }).valid).toBe(true);
  });

  it('gives the benefit of the doubt to a redelivery within the clock allowance, and says which allowance it used', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a' }], 10, 20)
      .receive(2, [{ body: 'a' }], 27_000, 27_010);
    const result = checkVisibility(h.pairs(), { clockAllowanceMs: 5_000 });
    expect(result.valid).toBe(true);
    expect(result.clockAllowanceMs).toBe(5_000);
    expect(checkVisibility(h.pairs(), { clockAllowanceMs: 1_000 }).valid).toBe(false);
  });

  it('fails when a message is delivered again after a delete with its current handle succeeded', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1' }], 10, 20)
      .delete(1, 'a', 'h1', 30, 40)
      .receive(2, [{ body: 'a', handle: 'h2' }], 60_000, 60_010);
    const result = checkVisibility(h.pairs(), { clockAllowanceMs: 1_000 });
    expect(result.valid).toBe(false);
    expect(result.deliveredAfterDelete).toHaveLength(1);
  });

  it('passes a redelivery after a delete whose handle may already have been stale', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1' }], 10, 20)
      .delete(1, 'a', 'h1', 35_000, 35_010)
      .receive(2, [{ body: 'a', handle: 'h2' }], 60_000, 60_010);
    expect(checkVisibility(h.pairs(), { clockAllowanceMs: 1_000 }).valid).toBe(true);
  });

  it('passes a redelivery after a ChangeMessageVisibility released the message, and still fails one before it', () => {
    const release = { queue: 'q', body: 'a', messageId: 'id-a', receiptHandle: 'h1', visibilityTimeoutSeconds: 0 };
    const base = (): HistoryBuilder =>
      new HistoryBuilder().send(0, 'a', 0, 'ok').receive(1, [{ body: 'a', handle: 'h1' }], 10, 20);
    const released = base()
      .op({ process: 1, f: 'change-visibility', value: release, fromMs: 100, toMs: 110, outcome: 'ok', result: {} })
      .receive(2, [{ body: 'a', handle: 'h2' }], 1_000, 1_010);
    expect(checkVisibility(released.pairs(), { clockAllowanceMs: 0 }).valid).toBe(true);
    const before = base()
      .receive(2, [{ body: 'a', handle: 'h2' }], 50, 60)
      .op({ process: 1, f: 'change-visibility', value: release, fromMs: 100, toMs: 110, outcome: 'ok', result: {} });
    expect(checkVisibility(before.pairs(), { clockAllowanceMs: 0 }).valid).toBe(false);
    const refused = base()
      .op({ process: 1, f: 'change-visibility', value: release, fromMs: 100, toMs: 110, outcome: 'fail', result: {} })
      .receive(2, [{ body: 'a', handle: 'h2' }], 1_000, 1_010);
    expect(checkVisibility(refused.pairs(), { clockAllowanceMs: 0 }).valid).toBe(false);
  });

  it('does not count a delete as definite when a ChangeMessageVisibility may have released the message first', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a', handle: 'h1' }], 10, 20)
      .op({
        process: 1,
        f: 'change-visibility',
        value: { queue: 'q', body: 'a', messageId: 'id-a', receiptHandle: 'h1', visibilityTimeoutSeconds: 0 },
        fromMs: 100,
        toMs: 110,
        outcome: 'ok',
        result: {},
      })
      .delete(1, 'a', 'h1', 200, 210)
      .receive(2, [{ body: 'a', handle: 'h2' }], 60_000, 60_010);
    expect(checkVisibility(h.pairs(), { clockAllowanceMs: 0 }).deliveredAfterDeleteCount).toBe(0);
  });
});
