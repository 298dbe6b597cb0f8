import type { OperationPair } from '../history/operation-pairs.js';
import { deletesOf, deliveriesOf, type DeleteInvoke, type Delivery } from './queue-ops.js';

const listedViolationsMax = 50;

export interface UndeletedDelivery {
  readonly messageId: string;
  readonly body: string;
  readonly receiveInvokeIndex: number;
}

export interface ReceiveCountStall {
  readonly messageId: string;
  readonly body: string;
  /** The earlier delivery's receive (completed before the later one was invoked) and its count. */
  readonly earlierReceiveInvokeIndex: number;
  readonly earlierReceiveCount: number;
  readonly laterReceiveInvokeIndex: number;
  readonly laterReceiveCount: number | undefined;
}

export interface RedeliveryResult {
  readonly valid: boolean;
  readonly deliveriesChecked: number;
  /** Deliveries nobody deleted, of messages never delivered again: the message vanished. */
  readonly undeletedNotRedeliveredCount: number;
  readonly undeletedNotRedelivered: UndeletedDelivery[];
  /** Deliveries of a message whose ApproximateReceiveCount did not rise in real-time order. */
  readonly receiveCountStallCount: number;
  readonly receiveCountStalls: ReceiveCountStall[];
}

/**
 * A delivery proves a message existed, not that it was kept: one served from a state that was
 * later rolled back, or handed out and never deleted, must still come back. So:
 *
 * - every delivery of a message that no delete of it may have removed afterwards (one that did not
 *   definitely fail and completed after the delivery's receive was invoked) must be followed by
 *   another delivery of it, whose receive was invoked later. The history ends with a drain, so a
 *   message left in the queue is delivered again;
 * - the message's ApproximateReceiveCount rises with each delivery: when one delivery's receive
 *   completed before another's was invoked, the later count is larger (every receive that returns
 *   a message counts, seen by the history or not, so it can rise by more than one).
 */
export function checkRedelivery(pairs: readonly OperationPair[], queue?: string): RedeliveryResult {
  const deliveries = deliveriesOf(pairs, queue);
  const byMessage = new Map<string, Delivery[]>();
  for (const d of deliveries) byMessage.set(d.message.messageId, [...(byMessage.get(d.message.messageId) ?? []), d]);
  const deleteCompletions = new Map<string, number[]>();
  for (const del of deletesOf(pairs, queue)) {
    if (del.outcome === 'fail') continue;
    const id = (del.invoke.value as DeleteInvoke).messageId;
    deleteCompletions.set(id, [...(deleteCompletions.get(id) ?? []), del.completeIndex]);
  }
  const undeleted: UndeletedDelivery[] = [];
  const stalls: ReceiveCountStall[] = [];
  for (const [messageId, list] of byMessage) {
    const deletes = deleteCompletions.get(messageId) ?? [];
    for (const d of list) {
      const isPossiblyDeletedAfter = deletes.some((completeIndex) => completeIndex > d.receive.invoke.index);
      const isDeliveredAgain = list.some((e) => e.receive.invoke.index > d.receive.invoke.index);
      if (!isPossiblyDeletedAfter && !isDeliveredAgain)
        undeleted.push({ messageId, body: d.message.body, receiveInvokeIndex: d.receive.invoke.index });
      const count = d.message.receiveCount;
      if (count === undefined) continue;
      for (const later of list) {
        if (d.receive.completeIndex >= later.receive.invoke.index) continue;
        if (later.message.receiveCount === undefined || later.message.receiveCount <= count) {
          stalls.push({
            messageId,
            body: d.message.body,
            earlierReceiveInvokeIndex: d.receive.invoke.index,
            earlierReceiveCount: count,
            laterReceiveInvokeIndex: later.receive.invoke.index,
            laterReceiveCount: later.message.receiveCount,
          });
        }
      }
    }
  }
  return {
    valid: undeleted.length === 0 && stalls.length === 0,
    deliveriesChecked: deliveries.length,
    undeletedNotRedeliveredCount: undeleted.length,
    undeletedNotRedelivered: undeleted.slice(0, listedViolationsMax),
    receiveCountStallCount: stalls.length,
    receiveCountStalls: stalls.slice(0, listedViolationsMax),
  };
}
