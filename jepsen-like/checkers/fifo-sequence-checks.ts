import type { OperationPair } from '../history/operation-pairs.js';
import { compareSequenceNumbers, sendsOf, type Delivery, type SendInvoke, type SendResult } from './queue-ops.js';

export interface SequenceViolation {
  /**
   * 'duplicate-sequence-number': two messages of the queue carry one SequenceNumber;
   * 'sequence-number-changed': one message was reported with two SequenceNumbers;
   * 'send-order': message A's send completed before B's was invoked, in one group, yet seq(A) > seq(B);
   * the numbers and ids are listed A first.
   */
  readonly kind: 'duplicate-sequence-number' | 'sequence-number-changed' | 'send-order';
  readonly sequenceNumbers: string[];
  readonly messageIds: string[];
  readonly groupId?: string;
}

/** A message whose SequenceNumber is known, with the interval in which its send certainly took effect. */
interface SequencedMessage {
  readonly messageId: string;
  readonly groupId: string;
  readonly sequenceNumber: string;
  /** The first invocation of a send of its body. */
  readonly createdFromMs: number;
  /** The first ok completion of a send of its body; Infinity when none was acknowledged. */
  readonly createdByMs: number;
}

/**
 * What the FIFO checker must not take on trust from the server's SequenceNumbers: that each one
 * names one message (unique per queue, and the same every time a message is reported), and that
 * within a group they follow real time — when A's send completed before B's was invoked, A was
 * committed first, so seq(A) < seq(B). A message's send interval comes from the sends of its body:
 * from the first invocation to the first acknowledgement (a deliberate re-send of the body is
 * deduplicated onto it). A body delivered as two messages (a re-send after the deduplication
 * window) has no single interval and is left out of the real-time check.
 */
export function findSequenceViolations(
  pairs: readonly OperationPair[],
  deliveries: readonly Delivery[],
  queue?: string,
): SequenceViolation[] {
  const violations: SequenceViolation[] = [];
  const seqById = new Map<string, string>();
  const idBySeq = new Map<string, string>();
  const groupById = new Map<string, string>();
  const bodyById = new Map<string, string>();
  const note = (
    messageId: string,
    sequenceNumber: string,
    groupId: string | undefined,
    body: string | undefined,
  ): void => {
    const seen = seqById.get(messageId);
    if (seen !== undefined && compareSequenceNumbers(seen, sequenceNumber) !== 0) {
      violations.push({
        kind: 'sequence-number-changed',
        sequenceNumbers: [seen, sequenceNumber],
        messageIds: [messageId],
      });
      return;
    }
    if (seen === undefined) {
      const canonical = BigInt(sequenceNumber).toString();
      const other = idBySeq.get(canonical);
      if (other !== undefined && other !== messageId) {
        violations.push({
          kind: 'duplicate-sequence-number',
          sequenceNumbers: [sequenceNumber],
          messageIds: [other, messageId],
        });
      }
      idBySeq.set(canonical, messageId);
      seqById.set(messageId, sequenceNumber);
    }
    if (groupId !== undefined) groupById.set(messageId, groupId);
    if (body !== undefined) bodyById.set(messageId, body);
  };
  const sends = sendsOf(pairs, queue);
  // A send's answer names a real message only when no other attempt shared its deduplication id.
  const attemptsByBody = new Map<string, OperationPair[]>();
  for (const send of sends) {
    const body = (send.invoke.value as SendInvoke).body;
    const list = attemptsByBody.get(body) ?? [];
    list.push(send);
    attemptsByBody.set(body, list);
  }
  for (const d of deliveries) {
    if (d.message.sequenceNumber !== undefined)
      note(d.message.messageId, d.message.sequenceNumber, d.message.groupId, d.message.body);
  }
  for (const [body, attempts] of attemptsByBody) {
    if (attempts.length !== 1) continue;
    const send = attempts[0] as OperationPair;
    const result = send.outcome === 'ok' ? (send.completion?.value as SendResult | undefined) : undefined;
    if (result?.sequenceNumber !== undefined)
      note(result.messageId, result.sequenceNumber, (send.invoke.value as SendInvoke).groupId, body);
  }

  const idsByBody = new Map<string, string[]>();
  for (const [id, body] of bodyById) idsByBody.set(body, [...(idsByBody.get(body) ?? []), id]);
  const byGroup = new Map<string, SequencedMessage[]>();
  for (const [messageId, sequenceNumber] of seqById) {
    const groupId = groupById.get(messageId);
    const body = bodyById.get(messageId);
    if (groupId === undefined || body === undefined || (idsByBody.get(body) ?? []).length !== 1) continue;
    const attempts = attemptsByBody.get(body) ?? [];
    if (attempts.length === 0) continue;
    const createdFromMs = Math.min(...attempts.map((a) => a.invokeMs));
    const createdByMs = Math.min(...attempts.filter((a) => a.outcome === 'ok').map((a) => a.completeMs));
    const list = byGroup.get(groupId) ?? [];
    list.push({ messageId, groupId, sequenceNumber, createdFromMs, createdByMs });
    byGroup.set(groupId, list);
  }
  for (const [groupId, messages] of byGroup) {
    messages.sort((a, b) => compareSequenceNumbers(a.sequenceNumber, b.sequenceNumber));
    // For each message, any with a larger SequenceNumber must not have been sent wholly before it.
    for (let i = 0; i < messages.length; i++) {
      const a = messages[i] as SequencedMessage;
      for (let j = i + 1; j < messages.length; j++) {
        const b = messages[j] as SequencedMessage;
        if (b.createdByMs < a.createdFromMs) {
          violations.push({
            kind: 'send-order',
            groupId,
            sequenceNumbers: [b.sequenceNumber, a.sequenceNumber],
            messageIds: [b.messageId, a.messageId],
          });
        }
      }
    }
  }
  return violations;
}
