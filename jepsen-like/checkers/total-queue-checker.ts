import type { OperationPair } from '../history/operation-pairs.js';
import { deliveriesOf, sendsOf, type SendInvoke } from './queue-ops.js';

/** How many bodies a report lists in full; the counts are always exact. */
const listedBodiesMax = 50;

export interface TotalQueueResult {
  readonly valid: boolean;
  readonly attemptedCount: number;
  readonly acknowledgedCount: number;
  readonly receivedCount: number;
  /** Acknowledged sends never received, not even after the final drain. Must be empty. */
  readonly lostCount: number;
  readonly lost: string[];
  /** Received bodies that no send ever attempted. Must be empty. */
  readonly unexpectedCount: number;
  readonly unexpected: string[];
  /** Bodies received more than once: allowed on a standard queue (at-least-once), counted. */
  readonly duplicatedCount: number;
  readonly duplicated: string[];
  /** Deliveries beyond the first, summed over all bodies. */
  readonly extraDeliveries: number;
  /** Sends whose outcome was info or fail and that were received anyway. */
  readonly recoveredCount: number;
  /** Sends that definitely failed yet were delivered. Must be empty. */
  readonly failedDeliveredCount: number;
  readonly failedDelivered: string[];
  /** Sends with an unknown outcome that were never received: allowed. */
  readonly unknownUndeliveredCount: number;
}

/**
 * Jepsen's total-queue checker, for one queue (or all queues when `queue` is not given). It must
 * run on a history that ends with a drain: every client has stopped sending and consumers have
 * received until the queue stayed empty, so an acknowledged body not received by then is lost.
 */
export function checkTotalQueue(pairs: readonly OperationPair[], queue?: string): TotalQueueResult {
  const attempted = new Set<string>();
  const acknowledged = new Set<string>();
  const failed = new Set<string>();
  const unknown = new Set<string>();
  for (const send of sendsOf(pairs, queue)) {
    const body = (send.invoke.value as SendInvoke).body;
    attempted.add(body);
    if (send.outcome === 'ok') acknowledged.add(body);
    else if (send.outcome === 'fail') failed.add(body);
    else unknown.add(body);
  }
  // A deliberate re-send of a body counts as acknowledged if any attempt was.
  for (const body of acknowledged) {
    failed.delete(body);
    unknown.delete(body);
  }
  // An info attempt of a body overrides a fail of another attempt of the same body.
  for (const body of unknown) failed.delete(body);

  const receivedCounts = new Map<string, number>();
  for (const delivery of deliveriesOf(pairs, queue)) {
    receivedCounts.set(delivery.message.body, (receivedCounts.get(delivery.message.body) ?? 0) + 1);
  }
  const lost = [...acknowledged].filter((body) => !receivedCounts.has(body));
  const unexpected = [...receivedCounts.keys()].filter((body) => !attempted.has(body));
  const duplicated = [...receivedCounts].filter(([, n]) => n > 1).map(([body]) => body);
  const extraDeliveries = [...receivedCounts.values()].reduce((sum, n) => sum + n - 1, 0);
  const recovered = [...failed, ...unknown].filter((body) => receivedCounts.has(body));
  const failedDelivered = [...failed].filter((body) => receivedCounts.has(body));
  const unknownUndelivered = [...unknown].filter((body) => !receivedCounts.has(body));
  return {
    valid: lost.length === 0 && unexpected.length === 0 && failedDelivered.length === 0,
    attemptedCount: attempted.size,
    acknowledgedCount: acknowledged.size,
    receivedCount: receivedCounts.size,
    lostCount: lost.length,
    lost: lost.slice(0, listedBodiesMax),
    unexpectedCount: unexpected.length,
    unexpected: unexpected.slice(0, listedBodiesMax),
    duplicatedCount: duplicated.length,
    duplicated: duplicated.slice(0, listedBodiesMax),
    extraDeliveries,
    recoveredCount: recovered.length,
    failedDeliveredCount: failedDelivered.length,
    failedDelivered: failedDelivered.slice(0, listedBodiesMax),
    unknownUndeliveredCount: unknownUndelivered.length,
  };
}
