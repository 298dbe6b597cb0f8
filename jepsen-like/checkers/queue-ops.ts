import type { OperationPair } from '../history/operation-pairs.js';

/**
 * The operation values the queue workloads record and the queue checkers read.
 *
 * - send: invoke `SendInvoke`; ok `SendResult`.
 * - receive: invoke `ReceiveInvoke`; ok `ReceiveResult`.
 * - delete: invoke `DeleteInvoke`; ok `{}`.
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

/** One message handed to one consumer by one receive that completed ok. */
export interface Delivery {
  readonly message: ReceivedMessage;
  readonly queue: string;
  readonly receive: OperationPair;
  readonly visibilityTimeoutSeconds: number;
  /** Position within the receive's answer. */
  readonly position: number;
}

export function sendsOf(pairs: readonly OperationPair[], queue?: string): OperationPair[] {
  return pairs.filter((p) => p.f === 'send' && (queue === undefined || (p.invoke.value as SendInvoke).queue === queue));
}

export function deletesOf(pairs: readonly OperationPair[], queue?: string): OperationPair[] {
  return pairs.filter((p) => p.f === 'delete' && (queue === undefined || (p.invoke.value as DeleteInvoke).queue === queue));
}

/** Every delivery of every ok receive, in the order the receives completed. */
export function deliveriesOf(pairs: readonly OperationPair[], queue?: string): Delivery[] {
  const receives = pairs
    .filter((p) => p.f === 'receive' && p.outcome === 'ok' && (queue === undefined || (p.invoke.value as ReceiveInvoke).queue === queue))
    .sort((a, b) => a.completeIndex - b.completeIndex);
  const deliveries: Delivery[] = [];
  for (const receive of receives) {
    const args = receive.invoke.value as ReceiveInvoke;
    const result = receive.completion?.value as ReceiveResult | undefined;
    (result?.messages ?? []).forEach((message, position) => {
      deliveries.push({ message, queue: args.queue, receive, visibilityTimeoutSeconds: args.visibilityTimeoutSeconds, position });
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
