import type { OperationPair } from '../history/operation-pairs.js';
import { deletesOf, deliveriesOf, type DeleteInvoke, type Delivery } from './queue-ops.js';
import { VisibilityHolds } from './visibility-holds.js';

export interface DeliveredAfterDelete {
  readonly messageId: string;
  readonly body: string;
  /** History index of the delete's completion. */
  readonly deleteCompletedIndex: number;
  /** History index of the receive that delivered the message again. */
  readonly redeliveryReceiveIndex: number;
}

/**
 * Deliveries of a message after a delete of it that definitely took effect. A delete is definite
 * when it completed ok with the receipt handle of a delivery, before that delivery's visibility
 * timeout could have run out (less the clock allowance): no other consumer could have received the
 * message in between, so the handle was current and the message is gone. (A delete with a stale
 * handle is a successful no-op in SQS, which is why the timing matters; a ChangeMessageVisibility
 * may have shortened the hold, see VisibilityHolds.) A receive invoked after
 * such a delete completed must never return the message.
 */
export function findDeliveredAfterDelete(
  pairs: readonly OperationPair[],
  options: { queue?: string; clockAllowanceMs: number },
): DeliveredAfterDelete[] {
  const deliveries = deliveriesOf(pairs, options.queue);
  const byHandle = new Map<string, Delivery>();
  const byMessage = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    byHandle.set(d.message.receiptHandle, d);
    const list = byMessage.get(d.message.messageId) ?? [];
    list.push(d);
    byMessage.set(d.message.messageId, list);
  }
  const holds = new VisibilityHolds(pairs, options.queue, options.clockAllowanceMs);
  const found: DeliveredAfterDelete[] = [];
  for (const del of deletesOf(pairs, options.queue)) {
    if (del.outcome !== 'ok') continue;
    const args = del.invoke.value as DeleteInvoke;
    const held = byHandle.get(args.receiptHandle);
    if (held === undefined) continue;
    if (del.completeMs >= holds.endsEarliestMs(held)) continue;
    for (const again of byMessage.get(args.messageId) ?? []) {
      if (again.receive.invoke.index > del.completeIndex) {
        found.push({
          messageId: args.messageId,
          body: args.body,
          deleteCompletedIndex: del.completeIndex,
          redeliveryReceiveIndex: again.receive.invoke.index,
        });
      }
    }
  }
  return found;
}
