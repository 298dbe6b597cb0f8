import { describe, expect, it } from 'vitest';
import { checkHistory } from './queue-checkers.js';
import { QueueHistory, type SendRecord } from './queue-history.js';

const layout = { deadLetterOf: { std: 'std-dlq' } };

function sent(
  history: QueueHistory,
  body: string,
  options: { queue?: string; group?: string; issuedMs?: number; doneMs?: number; outcome?: SendRecord['outcome'] } = {},
): void {
  history.sends.set(body, {
    body,
    queue: options.queue ?? 'std',
    group: options.group ?? null,
    node: 'n1',
    issuedMs: options.issuedMs ?? 0,
    doneMs: options.doneMs ?? 10,
    outcome: options.outcome ?? 'ok',
  });
}

function received(
  history: QueueHistory,
  bodies: string[],
  options: { queue?: string; issuedMs: number; doneMs: number; visibilityTimeoutMs?: number; isDrain?: boolean },
): number {
  const record = history.newReceive(
    options.queue ?? 'std',
    'n2',
    options.issuedMs,
    options.visibilityTimeoutMs ?? 5_000,
    options.isDrain ?? false,
  );
  record.doneMs = options.doneMs;
  record.outcome = 'ok';
  record.messages = bodies.map((body) => ({ body, receiptHandle: `h-${body}-${record.id}` }));
  return record.id;
}

function deleted(
  history: QueueHistory,
  body: string,
  receiveId: number,
  issuedMs: number,
  doneMs: number,
  outcome: 'ok' | 'refused' | 'failed' = 'ok',
  queue = 'std',
): void {
  history.deletes.push({ body, queue, receiveId, node: 'n3', issuedMs, doneMs, outcome });
}

const kinds = (history: QueueHistory): string[] => checkHistory(history, layout).map((v) => v.kind);

describe('queue-level checkers', () => {
  it('accept a history where every acknowledged message was received, deleted once and never seen again', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    sent(h, 'm2', { outcome: 'failed' });
    const r = received(h, ['m1'], { issuedMs: 20, doneMs: 30 });
    deleted(h, 'm1', r, 31, 40);
    received(h, [], { issuedMs: 50, doneMs: 60 });
    expect(kinds(h)).toEqual([]);
  });

  it('lostAcknowledged: an acknowledged send never received, deleted or purged', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    sent(h, 'm2', { outcome: 'pending' });
    expect(kinds(h)).toEqual(['lostAcknowledged']);
    // A purge answered before the send was issued cannot have removed it.
    h.purges.push({ queue: 'std', issuedMs: -20, doneMs: -5 });
    expect(kinds(h)).toEqual(['lostAcknowledged']);
    h.purges.push({ queue: 'std', issuedMs: -10, doneMs: 5 });
    expect(kinds(h)).toEqual([]);
  });

  it('phantom: a body nobody sent, or sent to another queue, is received', () => {
    const h = new QueueHistory();
    sent(h, 'm1', { queue: 'jobs.fifo', group: 'g' });
    received(h, ['m1'], { issuedMs: 20, doneMs: 30 });
    received(h, ['m9'], { issuedMs: 20, doneMs: 30, queue: 'jobs.fifo' });
    expect(kinds(h)).toEqual(['phantom', 'phantom']);
  });

  it('phantom: a standard message found in its dead-letter queue is no phantom', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    received(h, ['m1'], { issuedMs: 20, doneMs: 30, queue: 'std-dlq' });
    expect(kinds(h)).toEqual([]);
  });

  it('fifoOrder: a later message of a group delivered while an earlier one was never deleted', () => {
    const h = new QueueHistory();
    sent(h, 'a', { queue: 'jobs.fifo', group: 'g', issuedMs: 0, doneMs: 5 });
    sent(h, 'b', { queue: 'jobs.fifo', group: 'g', issuedMs: 10, doneMs: 15 });
    received(h, ['b'], { queue: 'jobs.fifo', issuedMs: 20, doneMs: 30 });
    received(h, ['a'], { queue: 'jobs.fifo', issuedMs: 40, doneMs: 50 });
    expect(kinds(h)).toEqual(['fifoOrder']);
  });

  it('fifoOrder: in order within one receive, or after a delete that was not refused, is fine', () => {
    const h = new QueueHistory();
    sent(h, 'a', { queue: 'jobs.fifo', group: 'g', issuedMs: 0, doneMs: 5 });
    sent(h, 'b', { queue: 'jobs.fifo', group: 'g', issuedMs: 10, doneMs: 15 });
    const first = received(h, ['a', 'b'], { queue: 'jobs.fifo', issuedMs: 20, doneMs: 30 });
    deleted(h, 'a', first, 31, 35, 'failed', 'jobs.fifo');
    deleted(h, 'b', first, 31, 35, 'ok', 'jobs.fifo');
    expect(kinds(h)).toEqual([]);
    const h2 = new QueueHistory();
    sent(h2, 'a', { queue: 'jobs.fifo', group: 'g', issuedMs: 0, doneMs: 5 });
    sent(h2, 'b', { queue: 'jobs.fifo', group: 'g', issuedMs: 10, doneMs: 15 });
    const r = received(h2, ['a'], { queue: 'jobs.fifo', issuedMs: 20, doneMs: 30 });
    deleted(h2, 'a', r, 31, 35, 'refused', 'jobs.fifo');
    received(h2, ['b'], { queue: 'jobs.fifo', issuedMs: 40, doneMs: 50 });
    expect(kinds(h2)).toEqual(['fifoOrder']);
  });

  it('deletedRedelivered: a message delivered again after a delete surely made with its live handle', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    const r = received(h, ['m1'], { issuedMs: 20, doneMs: 30 });
    deleted(h, 'm1', r, 31, 40);
    received(h, ['m1'], { issuedMs: 10_000, doneMs: 10_010 });
    expect(kinds(h)).toEqual(['deletedRedelivered']);
    // An unanswered receive meanwhile may have taken the message over: the delete proves nothing then.
    const other = h.newReceive('std', 'n1', 25, 5_000, false);
    other.outcome = 'failed';
    other.doneMs = 35;
    expect(kinds(h)).toEqual([]);
  });

  it('doubleDelivery: two receives hold one message at once, unless a clock was off or its visibility changed', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    received(h, ['m1'], { issuedMs: 20, doneMs: 30, visibilityTimeoutMs: 5_000 });
    received(h, ['m1'], { issuedMs: 1_000, doneMs: 1_010 });
    expect(kinds(h)).toEqual(['doubleDelivery']);
    h.clockSkewSpans.push({ fromMs: 500, toMs: 600 });
    expect(kinds(h)).toEqual([]);
    h.clockSkewSpans.length = 0;
    h.visibilityChanges.push({ body: 'm1', issuedMs: 900 });
    expect(kinds(h)).toEqual([]);
  });

  it("doubleDelivery: a slow receive may have claimed after a quick one's hold ended: no violation", () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    // #1 is issued first but answered 3 s later; #2 holds for 2 s only: #1 may have claimed after #2's hold.
    received(h, ['m1'], { issuedMs: 0, doneMs: 3_000, visibilityTimeoutMs: 5_000 });
    received(h, ['m1'], { issuedMs: 10, doneMs: 100, visibilityTimeoutMs: 2_000 });
    expect(kinds(h)).toEqual([]);
  });

  it('doubleDelivery: a second delivery after the hold could have ended is fine', () => {
    const h = new QueueHistory();
    sent(h, 'm1');
    received(h, ['m1'], { issuedMs: 20, doneMs: 30, visibilityTimeoutMs: 5_000 });
    received(h, ['m1'], { issuedMs: 4_500, doneMs: 4_510 });
    expect(kinds(h)).toEqual([]);
  });
});
