import { sqsLimits } from '../../src/base/limits.js';
import type { OperationPair } from '../history/operation-pairs.js';
import { findDeliveredAfterDelete, type DeliveredAfterDelete } from './delivered-after-delete.js';
import { findSequenceViolations, type SequenceViolation } from './fifo-sequence-checks.js';
import { VisibilityHolds } from './visibility-holds.js';
import {
  compareSequenceNumbers,
  deletesOf,
  deliveriesOf,
  sendsOf,
  type DeleteInvoke,
  type Delivery,
  type SendInvoke,
  type SendResult,
} from './queue-ops.js';

const listedViolationsMax = 50;

export interface OrderViolation {
  /** 'out-of-order': delivered while an earlier, undeleted message of its group was skipped;
   *  'delivered-while-in-flight': delivered while a consumer held an earlier message of its group. */
  readonly kind: 'out-of-order' | 'delivered-while-in-flight';
  readonly groupId: string;
  readonly deliveredSequenceNumber: string;
  readonly earlierSequenceNumber: string;
  readonly earlierMessageId: string;
  readonly receiveInvokeIndex: number;
  /**
   * The earlier message's next delivery counted more receives than the history shows: a receive
   * whose answer was lost held it, so this delivery broke the group lock rather than the order.
   */
  readonly isEarlierHeldByLostReceive: boolean;
}

export interface DedupViolation {
  readonly dedupId: string;
  readonly messageIds: string[];
}

export interface FifoResult {
  readonly valid: boolean;
  readonly groups: number;
  readonly deliveriesChecked: number;
  readonly clockAllowanceMs: number;
  readonly orderViolationCount: number;
  readonly orderViolations: OrderViolation[];
  readonly dedupViolationCount: number;
  readonly dedupViolations: DedupViolation[];
  readonly sequenceViolationCount: number;
  readonly sequenceViolations: SequenceViolation[];
  readonly deliveredAfterDeleteCount: number;
  readonly deliveredAfterDelete: DeliveredAfterDelete[];
}

interface KnownMessage {
  readonly messageId: string;
  readonly groupId: string;
  readonly sequenceNumber: string;
}

/**
 * FIFO order, per message group, over one FIFO queue.
 *
 * SequenceNumbers are assigned in commit order, so a message of a group with a smaller sequence
 * number existed whenever a larger one did. A receive that returns message s of group g is
 * therefore wrong if some message t of g with a smaller sequence number had not possibly been
 * deleted by the time the receive completed, unless the same receive returned t before s: t was
 * either visible (s skipped it: out of order, or a gap) or held by a consumer (the group lock
 * was broken). Deletes that were invoked before the receive completed and did not definitely fail
 * count as possibly done, so the check never blames the queue for a race it cannot see — unless t
 * was delivered again by a receive invoked after this one completed: a deleted message never
 * comes back, so t was still there.
 *
 * SequenceNumbers themselves are checked (findSequenceViolations): unique per queue, one per
 * message, and in real-time send order within a group.
 *
 * Deduplication: sends with the same MessageDeduplicationId that certainly fell within the
 * 5-minute window must be delivered as one message: deliveries of two message ids for one
 * deduplication id are a duplicate.
 */
export function checkFifo(
  pairs: readonly OperationPair[],
  options: { queue?: string; clockAllowanceMs: number },
): FifoResult {
  const deliveries = deliveriesOf(pairs, options.queue);
  const known = knownMessages(pairs, deliveries, options.queue);
  const deleteInvokes = deleteInvokeIndexes(pairs, options.queue);
  const holds = new VisibilityHolds(pairs, options.queue, options.clockAllowanceMs);
  const groups = new Map<string, KnownMessage[]>();
  for (const m of known.values()) {
    const list = groups.get(m.groupId) ?? [];
    list.push(m);
    groups.set(m.groupId, list);
  }
  const deliveriesByMessage = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    const list = deliveriesByMessage.get(d.message.messageId) ?? [];
    list.push(d);
    deliveriesByMessage.set(d.message.messageId, list);
  }

  const orderViolations: OrderViolation[] = [];
  for (const d of deliveries) {
    const self = known.get(d.message.messageId);
    if (self === undefined) continue;
    for (const earlier of groups.get(self.groupId) ?? []) {
      if (compareSequenceNumbers(earlier.sequenceNumber, self.sequenceNumber) >= 0) continue;
      const earlierDeliveries = deliveriesByMessage.get(earlier.messageId) ?? [];
      const isSeenAfter = earlierDeliveries.some((e) => e.receive.invoke.index > d.receive.completeIndex);
      if (!isSeenAfter && isPossiblyDeletedBefore(deleteInvokes.get(earlier.messageId), d.receive.completeIndex))
        continue;
      if (returnedEarlierInSameReceive(d, earlier.messageId, deliveriesByMessage)) continue;
      const held = isHeldDuring(earlierDeliveries, d, holds);
      orderViolations.push({
        kind: held ? 'delivered-while-in-flight' : 'out-of-order',
        groupId: self.groupId,
        deliveredSequenceNumber: self.sequenceNumber,
        earlierSequenceNumber: earlier.sequenceNumber,
        earlierMessageId: earlier.messageId,
        receiveInvokeIndex: d.receive.invoke.index,
        isEarlierHeldByLostReceive: isHeldByLostReceive(deliveriesByMessage.get(earlier.messageId) ?? [], d),
      });
    }
  }
  const dedupViolations = findDedupViolations(pairs, deliveries, options);
  const afterDelete = findDeliveredAfterDelete(pairs, options);
  const sequenceViolations = findSequenceViolations(pairs, deliveries, options.queue);
  return {
    valid:
      orderViolations.length === 0 &&
      dedupViolations.length === 0 &&
      afterDelete.length === 0 &&
      sequenceViolations.length === 0,
    groups: groups.size,
    deliveriesChecked: deliveries.length,
    clockAllowanceMs: options.clockAllowanceMs,
    orderViolationCount: orderViolations.length,
    orderViolations: orderViolations.slice(0, listedViolationsMax),
    dedupViolationCount: dedupViolations.length,
    dedupViolations: dedupViolations.slice(0, listedViolationsMax),
    sequenceViolationCount: sequenceViolations.length,
    sequenceViolations: sequenceViolations.slice(0, listedViolationsMax),
    deliveredAfterDeleteCount: afterDelete.length,
    deliveredAfterDelete: afterDelete.slice(0, listedViolationsMax),
  };
}

/** Messages whose group and sequence number are known, from send results and from deliveries. */
function knownMessages(
  pairs: readonly OperationPair[],
  deliveries: readonly Delivery[],
  queue?: string,
): Map<string, KnownMessage> {
  const known = new Map<string, KnownMessage>();
  const sends = sendsOf(pairs, queue);
  // A send's answer names a message that exists only if no other attempt shared its deduplication
  // id: a deduplicated attempt may answer with an id and sequence number of its own that name
  // nothing. Deliveries always name real messages.
  const attemptsByDedupId = new Map<string, number>();
  for (const send of sends) {
    const dedupId = (send.invoke.value as SendInvoke).dedupId;
    if (dedupId !== undefined) attemptsByDedupId.set(dedupId, (attemptsByDedupId.get(dedupId) ?? 0) + 1);
  }
  for (const send of sends) {
    const args = send.invoke.value as SendInvoke;
    if (args.dedupId !== undefined && (attemptsByDedupId.get(args.dedupId) ?? 0) > 1) continue;
    const result = send.outcome === 'ok' ? (send.completion?.value as SendResult) : undefined;
    if (result?.sequenceNumber === undefined || args.groupId === undefined) continue;
    known.set(result.messageId, {
      messageId: result.messageId,
      groupId: args.groupId,
      sequenceNumber: result.sequenceNumber,
    });
  }
  for (const d of deliveries) {
    const { messageId, groupId, sequenceNumber } = d.message;
    if (groupId === undefined || sequenceNumber === undefined || known.has(messageId)) continue;
    known.set(messageId, { messageId, groupId, sequenceNumber });
  }
  return known;
}

function deleteInvokeIndexes(pairs: readonly OperationPair[], queue?: string): Map<string, number[]> {
  const byMessage = new Map<string, number[]>();
  for (const del of deletesOf(pairs, queue)) {
    if (del.outcome === 'fail') continue;
    const id = (del.invoke.value as DeleteInvoke).messageId;
    const list = byMessage.get(id) ?? [];
    list.push(del.invoke.index);
    byMessage.set(id, list);
  }
  return byMessage;
}

function isPossiblyDeletedBefore(deleteInvokeIndexList: number[] | undefined, historyIndex: number): boolean {
  return (deleteInvokeIndexList ?? []).some((index) => index < historyIndex);
}

function returnedEarlierInSameReceive(
  d: Delivery,
  earlierMessageId: string,
  byMessage: Map<string, Delivery[]>,
): boolean {
  return (byMessage.get(earlierMessageId) ?? []).some((e) => e.receive === d.receive && e.position < d.position);
}

/** Whether a completed receive certainly still held the earlier message while `d`'s receive ran. */
function isHeldDuring(earlierDeliveries: readonly Delivery[], d: Delivery, holds: VisibilityHolds): boolean {
  return earlierDeliveries.some(
    (e) =>
      e.receive !== d.receive &&
      e.receive.completeIndex < d.receive.invoke.index &&
      d.receive.completeMs < holds.endsEarliestMs(e),
  );
}

/**
 * Whether the first delivery of the earlier message after `d` reports a receive count above the
 * deliveries the history shows before it: some receive claimed it and its answer was lost.
 */
function isHeldByLostReceive(earlierDeliveries: readonly Delivery[], d: Delivery): boolean {
  const next = earlierDeliveries.find((e) => e.receive.invoke.index > d.receive.invoke.index);
  if (next?.message.receiveCount === undefined) return false;
  const seenBefore = earlierDeliveries.filter((e) => e.receive.completeIndex < next.receive.invoke.index).length;
  return next.message.receiveCount > seenBefore + 1;
}

function findDedupViolations(
  pairs: readonly OperationPair[],
  deliveries: readonly Delivery[],
  options: { queue?: string; clockAllowanceMs: number },
): DedupViolation[] {
  const firstDeliveryMsById = new Map<string, number>();
  for (const d of deliveries) {
    const seen = firstDeliveryMsById.get(d.message.messageId);
    if (seen === undefined || d.receive.completeMs < seen)
      firstDeliveryMsById.set(d.message.messageId, d.receive.completeMs);
  }
  // For each dedup id, each message id it resolved to, with the interval in which it was created.
  const byDedup = new Map<string, Map<string, { fromMs: number; toMs: number }>>();
  const note = (dedupId: string, messageId: string, fromMs: number, toMs: number): void => {
    const ids = byDedup.get(dedupId) ?? new Map<string, { fromMs: number; toMs: number }>();
    const prior = ids.get(messageId);
    ids.set(
      messageId,
      prior === undefined
        ? { fromMs, toMs }
        : { fromMs: Math.min(prior.fromMs, fromMs), toMs: Math.min(prior.toMs, toMs) },
    );
    byDedup.set(dedupId, ids);
  };
  // Only deliveries say how many messages exist: a deduplicated send may answer with a fresh
  // message id (SQS does not promise the first one's). A delivered message was created by one of
  // the attempts of its body: after the first of them was invoked, and before its first delivery
  // (or before the attempt that answered with its id completed). Those loose bounds can only make
  // the span longer, so a re-send made after the window never counts.
  const firstInvokeMsByBody = new Map<string, { invokeMs: number; dedupId: string | undefined }>();
  const answeredMsById = new Map<string, number>();
  for (const send of sendsOf(pairs, options.queue)) {
    const args = send.invoke.value as SendInvoke;
    const first = firstInvokeMsByBody.get(args.body);
    if (first === undefined || send.invokeMs < first.invokeMs)
      firstInvokeMsByBody.set(args.body, { invokeMs: send.invokeMs, dedupId: args.dedupId });
    const result = send.outcome === 'ok' ? (send.completion?.value as SendResult) : undefined;
    if (result !== undefined)
      answeredMsById.set(
        result.messageId,
        Math.min(answeredMsById.get(result.messageId) ?? Number.POSITIVE_INFINITY, send.completeMs),
      );
  }
  for (const d of deliveries) {
    const first = firstInvokeMsByBody.get(d.message.body);
    const dedupId = d.message.dedupId ?? first?.dedupId;
    if (dedupId === undefined || first === undefined) continue;
    const id = d.message.messageId;
    const toMs = Math.min(
      answeredMsById.get(id) ?? Number.POSITIVE_INFINITY,
      firstDeliveryMsById.get(id) ?? Number.POSITIVE_INFINITY,
    );
    note(dedupId, id, first.invokeMs, toMs);
  }
  const violations: DedupViolation[] = [];
  const windowMs = sqsLimits.deduplicationWindowMs.value - options.clockAllowanceMs;
  for (const [dedupId, ids] of byDedup) {
    if (ids.size < 2) continue;
    const spans = [...ids.values()];
    const spanMs = Math.max(...spans.map((s) => s.toMs)) - Math.min(...spans.map((s) => s.fromMs));
    if (spanMs < windowMs) violations.push({ dedupId, messageIds: [...ids.keys()] });
  }
  return violations;
}
