/**
 * The queue-level checkers of the whole-node simulation. Each judges the client-visible history
 * (queue-history.ts) and reports violations only where the history proves one: an operation whose
 * answer was lost may or may not have happened, and counts both ways.
 *
 * - lostAcknowledged: a send acknowledged to its client, never deleted, found again when the
 *   queues are drained after healing, nor issued before some purge of its queue was answered;
 * - phantom: a body received that no client sent to that queue (or to the queue whose dead-letter
 *   queue it is);
 * - fifoOrder: a FIFO message delivered while an earlier message of its group (acknowledged
 *   before the later one was sent) still existed — no delete of it had been issued, or every one
 *   was refused;
 * - deletedRedelivered: a message delivered by a receive issued after a delete of it was
 *   acknowledged, when that delete surely used the handle that held the message;
 * - doubleDelivery: a message delivered by two receives whose holds surely overlapped, whichever
 *   claimed first (each claim lies somewhere between its receive's issue and answer), with no
 *   change of its visibility and no clock jump in between: a claim is exclusive.
 */
import type { QueueHistory, ReceiveRecord, SendRecord } from './queue-history.js';

export interface QueueViolation {
  readonly kind:
    | 'lostAcknowledged'
    | 'phantom'
    | 'fifoOrder'
    | 'deletedRedelivered'
    | 'doubleDelivery'
    | 'digestMismatch'
    | 'deadGenerationWrite'
    | 'liveness'
    | 'nodeFatal'
    | 'unexpectedError';
  readonly message: string;
  /** Bodies the violation is about: the trace shown for it follows them. */
  readonly bodies: readonly string[];
}

export interface QueueLayout {
  /** The queue a message sent to `queue` may also be found in (its dead-letter queue). */
  readonly deadLetterOf: Readonly<Record<string, string>>;
}

export function checkHistory(history: QueueHistory, layout: QueueLayout): QueueViolation[] {
  return [
    ...checkPhantoms(history, layout),
    ...checkLost(history),
    ...checkFifoOrder(history),
    ...checkDeletedRedelivered(history),
    ...checkDoubleDelivery(history),
  ];
}

/** Margin for the cluster clock a new leader continues (it samples the old one's) against virtual time. */
const clockMarginMs = 1_000;

/**
 * Two receives a and b delivered one message. Each claim happened somewhere between its receive's
 * issue and answer, so which came first may be unknown. The holds surely overlapped when, in every
 * order the intervals allow, the later claim fell inside the earlier one's hold (less a margin).
 */
function checkDoubleDelivery(history: QueueHistory): QueueViolation[] {
  const violations: QueueViolation[] = [];
  const receivesOf = new Map<string, ReceiveRecord[]>();
  for (const receive of history.receives) {
    if (receive.outcome !== 'ok' || receive.doneMs === null) continue;
    for (const copy of receive.messages) {
      const list = receivesOf.get(copy.body) ?? [];
      list.push(receive);
      receivesOf.set(copy.body, list);
    }
  }
  /** With `first` claiming before `second`: did the second claim surely fall inside the first's hold? */
  const surelyInsideHold = (first: ReceiveRecord, second: ReceiveRecord): boolean =>
    (second.doneMs as number) - first.issuedMs < first.visibilityTimeoutMs - clockMarginMs;
  for (const [body, receives] of receivesOf) {
    search: for (let i = 0; i < receives.length; i++) {
      for (let j = i + 1; j < receives.length; j++) {
        const a = receives[i] as ReceiveRecord;
        const b = receives[j] as ReceiveRecord;
        const aMayBeFirst = a.issuedMs <= (b.doneMs as number);
        const bMayBeFirst = b.issuedMs <= (a.doneMs as number);
        const isOverlapCertain = (!aMayBeFirst || surelyInsideHold(a, b)) && (!bMayBeFirst || surelyInsideHold(b, a));
        if (!isOverlapCertain) continue;
        const fromMs = Math.min(a.issuedMs, b.issuedMs);
        const toMs = Math.max(a.doneMs as number, b.doneMs as number);
        if (history.isClockSkewedDuring(fromMs, toMs)) continue;
        if (history.visibilityChanges.some((c) => c.body === body && c.issuedMs <= toMs)) continue;
        violations.push({
          kind: 'doubleDelivery',
          message: `${body} was held by receive #${a.id} via ${a.node} (${a.issuedMs}–${a.doneMs} ms, hidden for ${a.visibilityTimeoutMs} ms) and receive #${b.id} via ${b.node} (${b.issuedMs}–${b.doneMs} ms, hidden for ${b.visibilityTimeoutMs} ms) at once, whichever claimed first`,
          bodies: [body],
        });
        break search;
      }
    }
  }
  return violations;
}

function checkPhantoms(history: QueueHistory, layout: QueueLayout): QueueViolation[] {
  const violations: QueueViolation[] = [];
  for (const receive of history.receives) {
    for (const copy of receive.messages) {
      const sent = history.sends.get(copy.body);
      const isRightQueue =
        sent !== undefined && (sent.queue === receive.queue || layout.deadLetterOf[sent.queue] === receive.queue);
      if (!isRightQueue) {
        violations.push({
          kind: 'phantom',
          message: `receive #${receive.id} on ${receive.queue} via ${receive.node} returned ${copy.body}, ${sent === undefined ? 'which nobody sent' : `sent to ${sent.queue}`}`,
          bodies: [copy.body],
        });
      }
    }
  }
  return violations;
}

function checkLost(history: QueueHistory): QueueViolation[] {
  const seen = new Set<string>();
  for (const receive of history.receives) for (const copy of receive.messages) seen.add(copy.body);
  const deleteIssued = new Set(history.deletes.map((d) => d.body));
  const violations: QueueViolation[] = [];
  for (const send of history.sends.values()) {
    if (send.outcome !== 'ok' || seen.has(send.body) || deleteIssued.has(send.body)) continue;
    // A purge may remove what was sent before it took effect, and it took effect before its answer.
    if (
      history.purges.some(
        (purge) => purge.queue === send.queue && (purge.doneMs === null || purge.doneMs >= send.issuedMs),
      )
    )
      continue;
    violations.push({
      kind: 'lostAcknowledged',
      message: `${send.body}, sent to ${send.queue} via ${send.node} and acknowledged at ${send.doneMs} ms, was never received, even when the queues were drained after healing`,
      bodies: [send.body],
    });
  }
  return violations;
}

function checkFifoOrder(history: QueueHistory): QueueViolation[] {
  const violations: QueueViolation[] = [];
  const byGroup = new Map<string, SendRecord[]>();
  for (const send of history.sends.values()) {
    if (send.group === null) continue;
    const key = `${send.queue}/${send.group}`;
    const list = byGroup.get(key) ?? [];
    list.push(send);
    byGroup.set(key, list);
  }
  const deletesOf = new Map<string, typeof history.deletes>();
  for (const d of history.deletes) {
    const list = deletesOf.get(d.body) ?? [];
    list.push(d);
    deletesOf.set(d.body, list);
  }
  for (const receive of history.receives) {
    if (receive.outcome !== 'ok' || receive.doneMs === null) continue;
    for (const copy of receive.messages) {
      const sent = history.sends.get(copy.body);
      if (sent === undefined || sent.group === null) continue;
      for (const earlier of byGroup.get(`${sent.queue}/${sent.group}`) ?? []) {
        if (earlier === sent || earlier.outcome !== 'ok' || earlier.doneMs === null || earlier.doneMs >= sent.issuedMs)
          continue;
        const doneMs = receive.doneMs;
        const mayBeDeleted = (deletesOf.get(earlier.body) ?? []).some(
          (d) => d.issuedMs <= doneMs && d.outcome !== 'refused',
        );
        const isInSameReceiveBefore =
          receive.messages.findIndex((m) => m.body === earlier.body) >= 0 &&
          receive.messages.findIndex((m) => m.body === earlier.body) < receive.messages.indexOf(copy);
        if (!mayBeDeleted && !isInSameReceiveBefore) {
          violations.push({
            kind: 'fifoOrder',
            message: `receive #${receive.id} on ${receive.queue} via ${receive.node} delivered ${copy.body} of group ${sent.group} while ${earlier.body}, acknowledged before ${copy.body} was sent, was not deleted`,
            bodies: [copy.body, earlier.body],
          });
        }
      }
    }
  }
  return violations;
}

/**
 * A delete acknowledged "ok" removed the message only if its handle was the live one: on a standard
 * queue a stale handle is a successful no-op. It surely was when the receive that gave the handle
 * was answered, nothing else on that queue could have received the message between that receive
 * and the delete's answer (every other receive then was answered, and none returned it), the
 * delete was answered well within the visibility timeout, and no clock jumped meanwhile.
 */
function checkDeletedRedelivered(history: QueueHistory): QueueViolation[] {
  const byId = new Map<number, ReceiveRecord>(history.receives.map((r) => [r.id, r]));
  const violations: QueueViolation[] = [];
  for (const d of history.deletes) {
    if (d.outcome !== 'ok' || d.doneMs === null) continue;
    const source = byId.get(d.receiveId);
    if (source === undefined || source.doneMs === null) continue;
    const windowStartMs = source.issuedMs;
    const windowEndMs = d.doneMs;
    if (windowEndMs - windowStartMs > source.visibilityTimeoutMs / 2) continue;
    if (history.isClockSkewedDuring(windowStartMs, windowEndMs)) continue;
    const overlapping = history.receives.filter(
      (r) =>
        r !== source &&
        r.queue === d.queue &&
        r.issuedMs <= windowEndMs &&
        (r.doneMs === null || r.doneMs >= windowStartMs),
    );
    if (overlapping.some((r) => r.outcome !== 'ok' || r.messages.some((m) => m.body === d.body))) continue;
    for (const later of history.receives) {
      if (later.issuedMs <= d.doneMs || later.queue !== d.queue) continue;
      if (later.messages.some((m) => m.body === d.body)) {
        violations.push({
          kind: 'deletedRedelivered',
          message: `${d.body} was deleted (acknowledged at ${d.doneMs} ms via ${d.node}) and delivered again by receive #${later.id} via ${later.node} issued at ${later.issuedMs} ms`,
          bodies: [d.body],
        });
        break;
      }
    }
  }
  return violations;
}
