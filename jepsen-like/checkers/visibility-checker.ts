import type { OperationPair } from '../history/operation-pairs.js';
import { findDeliveredAfterDelete, type DeliveredAfterDelete } from './delivered-after-delete.js';
import { deliveriesOf, type Delivery } from './queue-ops.js';
import { VisibilityHolds } from './visibility-holds.js';

const listedViolationsMax = 50;

export interface SecondDelivery {
  readonly messageId: string;
  readonly body: string;
  readonly first: DeliverySummary;
  readonly second: DeliverySummary;
  /** The window both deliveries fit in, which is shorter than the visibility timeout less the allowance. */
  readonly spanMs: number;
  readonly visibilityTimeoutMs: number;
}

export interface DeliverySummary {
  readonly process: number;
  readonly invokeIndex: number;
  readonly invokeMs: number;
  readonly completeMs: number;
  readonly node?: string;
}

export interface VisibilityResult {
  readonly valid: boolean;
  readonly deliveriesChecked: number;
  /** The clock offset allowance in force: the largest difference between nodes' cluster clocks. */
  readonly clockAllowanceMs: number;
  readonly secondDeliveryCount: number;
  readonly secondDeliveries: SecondDelivery[];
  readonly deliveredAfterDeleteCount: number;
  readonly deliveredAfterDelete: DeliveredAfterDelete[];
}

/**
 * A message received by one consumer is invisible to every other consumer for its visibility
 * timeout. Two deliveries of the same message violate that when both receives fit, from the first
 * invocation to the last completion, inside the shorter of their visibility timeouts less the
 * clock allowance: whichever claimed it first, the other claimed it while it was still held.
 * The allowance is there because the timeout runs on the cluster clock of the node that served
 * the receive, and the clock nemesis moves nodes' clocks apart. A ChangeMessageVisibility on
 * either delivery's handle may have released the message early: both receives must then also
 * have completed before the earliest instant it could have done so.
 */
export function checkVisibility(
  pairs: readonly OperationPair[],
  options: { queue?: string; clockAllowanceMs: number },
): VisibilityResult {
  const deliveries = deliveriesOf(pairs, options.queue);
  const holds = new VisibilityHolds(pairs, options.queue, options.clockAllowanceMs);
  const byMessage = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    const list = byMessage.get(d.message.messageId) ?? [];
    list.push(d);
    byMessage.set(d.message.messageId, list);
  }
  const violations: SecondDelivery[] = [];
  for (const [messageId, list] of byMessage) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i];
        const b = list[j];
        if (a === undefined || b === undefined) continue;
        const spanMs =
          Math.max(a.receive.completeMs, b.receive.completeMs) - Math.min(a.receive.invokeMs, b.receive.invokeMs);
        const visibilityTimeoutMs = Math.min(a.visibilityTimeoutSeconds, b.visibilityTimeoutSeconds) * 1000;
        const lastCompleteMs = Math.max(a.receive.completeMs, b.receive.completeMs);
        const isReleasedEarly = (d: Delivery): boolean =>
          holds.isChanged(d) && lastCompleteMs >= holds.endsEarliestMs(d);
        if (spanMs < visibilityTimeoutMs - options.clockAllowanceMs && !isReleasedEarly(a) && !isReleasedEarly(b)) {
          violations.push({
            messageId,
            body: a.message.body,
            first: summary(a),
            second: summary(b),
            spanMs,
            visibilityTimeoutMs,
          });
        }
      }
    }
  }
  const afterDelete = findDeliveredAfterDelete(pairs, options);
  return {
    valid: violations.length === 0 && afterDelete.length === 0,
    deliveriesChecked: deliveries.length,
    clockAllowanceMs: options.clockAllowanceMs,
    secondDeliveryCount: violations.length,
    secondDeliveries: violations.slice(0, listedViolationsMax),
    deliveredAfterDeleteCount: afterDelete.length,
    deliveredAfterDelete: afterDelete.slice(0, listedViolationsMax),
  };
}

function summary(d: Delivery): DeliverySummary {
  return {
    process: d.receive.process,
    invokeIndex: d.receive.invoke.index,
    invokeMs: d.receive.invokeMs,
    completeMs: d.receive.completeMs,
    ...(d.receive.invoke.node === undefined ? {} : { node: d.receive.invoke.node }),
  };
}
