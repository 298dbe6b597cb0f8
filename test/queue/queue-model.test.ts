/**
 * Random histories of sends, receives (several consumers), deletes, visibility changes and clock
 * moves, checked against what SQS promises: a message is never in flight under two receives at
 * once, nothing undeleted is lost, and on FIFO queues a message is delivered only after every
 * earlier message of its group was deleted (or comes before it in the same receive).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReceivedMessage } from '../../src/queue/queue-api.js';
import { entry, makeHarness } from './support/queue-harness.js';

type Op =
  | { kind: 'send'; group: number; count: number }
  | { kind: 'receive'; max: number; visibilitySeconds: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'release'; pick: number }
  | { kind: 'advance'; ms: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('send' as const),
    group: fc.integer({ min: 0, max: 2 }),
    count: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({
    kind: fc.constant('receive' as const),
    max: fc.integer({ min: 1, max: 3 }),
    visibilitySeconds: fc.integer({ min: 0, max: 8 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
);

async function runHistory(isFifo: boolean, ops: Op[], backing: 'store' | 'model'): Promise<void> {
  const { service, executor } = makeHarness({ executor: backing });
  const queue = isFifo ? 'm.fifo' : 'm';
  await service.createQueue({ name: queue, attributes: isFifo ? { FifoQueue: 'true' } : {}, tags: {} });
  const sequenceOf = new Map<string, bigint>();
  const groupOf = new Map<string, number>();
  const deleted = new Set<string>();
  const inFlightUntil = new Map<string, number>();
  const handles: ReceivedMessage[] = [];
  let sent = 0;
  for (const op of ops) {
    switch (op.kind) {
      case 'send': {
        const entries = Array.from({ length: op.count }, () => {
          sent++;
          return entry(
            `e${sent}`,
            `b${sent}`,
            isFifo ? { messageGroupId: `g${op.group}`, messageDeduplicationId: `d${sent}` } : {},
          );
        });
        const results = await service.sendMessages(queue, entries, { senderId: 's' });
        for (const result of results) {
          if ('error' in result) throw result.error;
          sequenceOf.set(result.messageId, BigInt(result.sequenceNumber ?? '0'));
          groupOf.set(result.messageId, op.group);
        }
        break;
      }
      case 'receive': {
        const nowMs = executor.nowMs();
        const batch = await service.receiveMessages(queue, {
          maxMessages: op.max,
          visibilityTimeoutSeconds: op.visibilitySeconds,
          waitTimeSeconds: 0,
        });
        batch.forEach((message, index) => {
          const id = message.messageId;
          expect(deleted.has(id), `deleted message ${id} delivered`).toBe(false);
          expect((inFlightUntil.get(id) ?? 0) <= nowMs, `message ${id} delivered while in flight`).toBe(true);
          inFlightUntil.set(id, nowMs + op.visibilitySeconds * 1000);
          if (isFifo) {
            for (const [other, sequence] of sequenceOf) {
              const isEarlierInGroup = groupOf.get(other) === groupOf.get(id) && sequence < (sequenceOf.get(id) ?? 0n);
              if (!isEarlierInGroup || deleted.has(other)) continue;
              const isEarlierInBatch = batch.slice(0, index).some((m) => m.messageId === other);
              expect(isEarlierInBatch, `FIFO: ${id} delivered before ${other} of its group`).toBe(true);
            }
          }
        });
        handles.push(...batch);
        break;
      }
      case 'delete': {
        const message = handles[op.pick % Math.max(handles.length, 1)];
        if (message === undefined) break;
        const [result] = await service.deleteMessages(queue, [{ entryId: 'd', receiptHandle: message.receiptHandle }]);
        // A delete with the message's current handle removes it; with a stale one it is a no-op;
        // on a FIFO queue, the current handle of a receive whose visibility expired is refused.
        const latest = [...handles].reverse().find((h) => h.messageId === message.messageId);
        const isCurrent = latest === message && !deleted.has(message.messageId);
        const isExpired = (inFlightUntil.get(message.messageId) ?? 0) <= executor.nowMs();
        if (isFifo && isCurrent && isExpired) {
          expect(
            result !== undefined &&
              'error' in result &&
              result.error.message.includes('The receipt handle has expired'),
          ).toBe(true);
          break;
        }
        expect(result).toEqual({ entryId: 'd' });
        if (isCurrent) deleted.add(message.messageId);
        break;
      }
      case 'release': {
        const message = handles[op.pick % Math.max(handles.length, 1)];
        if (message === undefined) break;
        const [result] = await service.changeMessageVisibility(queue, [
          { entryId: 'c', receiptHandle: message.receiptHandle, visibilityTimeoutSeconds: 0 },
        ]);
        if (result !== undefined && !('error' in result)) inFlightUntil.set(message.messageId, executor.nowMs());
        break;
      }
      case 'advance':
        executor.clock.advanceMs(op.ms);
        break;
    }
  }
  // Drain: every message sent and not deleted is still there.
  executor.clock.advanceMs(10_000);
  const remaining = new Set<string>();
  for (;;) {
    const batch = await service.receiveMessages(queue, {
      maxMessages: 10,
      visibilityTimeoutSeconds: 60,
      waitTimeSeconds: 0,
    });
    if (batch.length === 0) break;
    for (const message of batch) {
      remaining.add(message.messageId);
      await service.deleteMessages(queue, [{ entryId: 'd', receiptHandle: message.receiptHandle }]);
    }
  }
  const expected = [...sequenceOf.keys()].filter((id) => !deleted.has(id));
  expect([...remaining].sort()).toEqual(expected.sort());
}

describe('queue against the SQS model', () => {
  for (const backing of ['store', 'model'] as const) {
    it(`random standard-queue histories never double-deliver in flight and never lose an undeleted message (${backing} executor)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArbitrary, { maxLength: 40 }), (ops) => runHistory(false, ops, backing)),
        { numRuns: 150 },
      );
    });

    it(`random FIFO histories deliver each group in sequence order with one receive holding a group at a time (${backing} executor)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArbitrary, { maxLength: 40 }), (ops) => runHistory(true, ops, backing)),
        { numRuns: 150 },
      );
    });
  }
});
