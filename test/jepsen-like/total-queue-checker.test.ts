import { describe, expect, it } from 'vitest';
import { checkTotalQueue } from '../../jepsen-like/checkers/total-queue-checker.js';
import { HistoryBuilder } from './history-builder.js';

describe('total-queue checker', () => {
  it('passes a history where every acknowledged send is received once', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .send(1, 'b', 0, 'ok')
      .receive(2, [{ body: 'a' }, { body: 'b' }], 5, 6);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(true);
    expect(result).toMatchObject({
      acknowledgedCount: 2,
      receivedCount: 2,
      lostCount: 0,
      unexpectedCount: 0,
      duplicatedCount: 0,
    });
  });

  it('reports an acknowledged send never received as lost', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .send(0, 'b', 2, 'ok')
      .receive(1, [{ body: 'a' }], 5, 6);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(false);
    expect(result.lost).toEqual(['b']);
  });

  it('reports a received body that no client ever sent as unexpected', () => {
    const h = new HistoryBuilder().send(0, 'a', 0, 'ok').receive(1, [{ body: 'a' }, { body: 'ghost' }], 5, 6);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(false);
    expect(result.unexpected).toEqual(['ghost']);
  });

  it('counts duplicates without failing, since a standard queue delivers at least once', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok')
      .receive(1, [{ body: 'a' }], 5, 6)
      .receive(1, [{ body: 'a' }], 40_000, 40_001);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(true);
    expect(result.duplicated).toEqual(['a']);
    expect(result.extraDeliveries).toBe(1);
  });

  it('accepts info sends whether or not they were delivered, and counts the delivered ones as recovered', () => {
    const h = new HistoryBuilder()
      .send(0, 'maybe-yes', 0, 'info')
      .send(1, 'maybe-no', 0, 'info')
      .send(2, 'never-completed', 0, 'open')
      .receive(3, [{ body: 'maybe-yes' }], 5, 6);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(true);
    expect(result.recoveredCount).toBe(1);
    expect(result.unknownUndeliveredCount).toBe(2);
  });

  it('fails when the body of a definitely failed send is delivered', () => {
    const h = new HistoryBuilder().send(0, 'refused', 0, 'fail').receive(1, [{ body: 'refused' }], 5, 6);
    const result = checkTotalQueue(h.pairs());
    expect(result.valid).toBe(false);
    expect(result.failedDelivered).toEqual(['refused']);
  });

  it('checks only the named queue when given one', () => {
    const h = new HistoryBuilder()
      .send(0, 'a', 0, 'ok', { queue: 'one' })
      .send(0, 'b', 2, 'ok', { queue: 'two' })
      .receive(1, [{ body: 'a' }], 5, 6, { queue: 'one' });
    expect(checkTotalQueue(h.pairs(), 'one').valid).toBe(true);
    expect(checkTotalQueue(h.pairs(), 'two').lost).toEqual(['b']);
  });
});
