import type { OperationPair } from '../history/operation-pairs.js';

/**
 * The operation values the queue workloads record and the queue checkers read.
 *
 * - send: invoke `SendInvoke`; ok `SendResult`.
 * - send-batch: invoke `{ queue, entries: SendInvoke[] }`; ok `{ entries: BatchEntryResult<SendResult>[] }`.
 * - receive: invoke `ReceiveInvoke`; ok `ReceiveResult`.
 * - delete: invoke `DeleteInvoke`; ok `{}`.
 * - delete-batch: invoke `{ queue, entries: DeleteInvoke[] }`; ok `{ entries: BatchEntryResult<{}>[] }`.
 * - change-visibility: invoke `ChangeVisibilityInvoke`; ok `{}`.
 *
 * A batch is one request, so its entries share its invocation and completion; checkers see each
 * entry as an operation of its own (sendsOf, deletesOf), with the entry's outcome when the request
 * succeeded: a failed entry the client caused (SenderFault) definitely did not happen, any other
 * failed entry might have.
 *
 * Bodies are unique per send attempt (a deliberate deduplicated re-send reuses its body), so a
 * body names a send.
 */
export interface SendInvoke {
  readonly queue: string;
  readonly body: string;
  readonly groupId?: string;
  readonly dedupId?: string;
}

export interface SendResult {
  readonly messageId: string;
  /** FIFO only: SQS's SequenceNumber, a decimal string of up to 20 digits. */
  readonly sequenceNumber?: string;
}

export interface ReceiveInvoke {
  readonly queue: string;
  readonly visibilityTimeoutSeconds: number;
  readonly maxMessages: number;
}

export interface ReceivedMessage {
  readonly body: string;
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly sequenceNumber?: string;
  readonly groupId?: string;
  readonly dedupId?: string;
  readonly receiveCount?: number;
}

export interface ReceiveResult {
  readonly messages: readonly ReceivedMessage[];
}

export interface DeleteInvoke {
  readonly queue: string;
  readonly body: string;
  readonly messageId: string;
  readonly receiptHandle: string;
}

export interface ChangeVisibilityInvoke {
  readonly queue: string;
  readonly body: string;
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly visibilityTimeoutSeconds: number;
}

export type BatchEntryResult<T> =
  { readonly ok: T } | { readonly failed: { readonly code: string; readonly senderFault: boolean } };

export interface BatchInvoke<T> {
  readonly queue: string;
  readonly entries: readonly T[];
}

export interface BatchResult<T> {
  readonly entries: readonly BatchEntryResult<T>[];
}

/** One message handed to one consumer by one receive that completed ok. */
export interface Delivery {
  readonly message: ReceivedMessage;
  readonly queue: string;
  readonly receive: OperationPair;
  readonly visibilityTimeoutSeconds: number;
  /** Position within the receive's answer. */
  readonly position: number;
}

/** Every send, single or an entry of a batch, as an operation of its own. */
export function sendsOf(pairs: readonly OperationPair[], queue?: string): OperationPair[] {
  return entryOperations(pairs, 'send', 'send-batch', queue);
}

/** Every delete, single or an entry of a batch, as an operation of its own. */
export function deletesOf(pairs: readonly OperationPair[], queue?: string): OperationPair[] {
  return entryOperations(pairs, 'delete', 'delete-batch', queue);
}

export function visibilityChangesOf(pairs: readonly OperationPair[], queue?: string): OperationPair[] {
  return pairs.filter(
    (p) =>
      p.f === 'change-visibility' &&
      (queue === undefined || (p.invoke.value as ChangeVisibilityInvoke).queue === queue),
  );
}

function entryOperations(
  pairs: readonly OperationPair[],
  single: string,
  batch: string,
  queue: string | undefined,
): OperationPair[] {
  const out: OperationPair[] = [];
  for (const p of pairs) {
    const value = p.invoke.value as { queue?: string } | null;
    if (queue !== undefined && value?.queue !== queue) continue;
    if (p.f === single) out.push(p);
    if (p.f === batch) out.push(...batchEntries(p, single));
  }
  return out;
}

/** A batch operation's entries, each an operation with the batch's times and its own outcome. */
export function batchEntries(p: OperationPair, entryF: string): OperationPair[] {
  const invoke = p.invoke.value as BatchInvoke<unknown>;
  const results = p.outcome === 'ok' ? (p.completion?.value as BatchResult<unknown> | undefined)?.entries : undefined;
  return invoke.entries.map((entry, i) => {
    const result = results?.[i];
    const outcome: OperationPair['outcome'] =
      p.outcome !== 'ok'
        ? p.outcome
        : result === undefined
          ? 'info'
          : 'ok' in result
            ? 'ok'
            : result.failed.senderFault
              ? 'fail'
              : 'info';
    const value = result !== undefined && 'ok' in result ? result.ok : null;
    return {
      ...p,
      f: entryF,
      outcome,
      invoke: { ...p.invoke, f: entryF, value: entry },
      completion: p.completion === undefined ? undefined : { ...p.completion, f: entryF, value },
    };
  });
}

/** Every delivery of every ok receive, in the order the receives completed. */
export function deliveriesOf(pairs: readonly OperationPair[], queue?: string): Delivery[] {
  const receives = pairs
    .filter(
      (p) =>
        p.f === 'receive' &&
        p.outcome === 'ok' &&
        (queue === undefined || (p.invoke.value as ReceiveInvoke).queue === queue),
    )
    .sort((a, b) => a.completeIndex - b.completeIndex);
  const deliveries: Delivery[] = [];
  for (const receive of receives) {
    const args = receive.invoke.value as ReceiveInvoke;
    const result = receive.completion?.value as ReceiveResult | undefined;
    (result?.messages ?? []).forEach((message, position) => {
      deliveries.push({
        message,
        queue: args.queue,
        receive,
        visibilityTimeoutSeconds: args.visibilityTimeoutSeconds,
        position,
      });
    });
  }
  return deliveries;
}

export function sendResult(pair: OperationPair): SendResult | undefined {
  return pair.outcome === 'ok' ? (pair.completion?.value as SendResult) : undefined;
}

/** SequenceNumbers are decimal strings up to 2^64; compare them exactly. */
export function compareSequenceNumbers(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
