/**
 * What a handler is given: the message, how many times it has been delivered, and the lease the
 * library holds on it while the handler runs.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';

export interface ReceivedMessage {
  readonly messageId: string;
  readonly body: string;
  /** The producer's attributes (SQS message attributes). */
  readonly messageAttributes: Readonly<Record<string, MessageAttributeValue>>;
  /** SQS system attributes: SentTimestamp, ApproximateReceiveCount, MessageGroupId, … */
  readonly attributes: Readonly<Record<string, string>>;
  /** FIFO queues only. */
  readonly messageGroupId?: string;
}

export interface Lease {
  /** The receipt handle this delivery holds. Do not delete or change the message yourself. */
  readonly receiptHandle: string;
  /**
   * Aborted when the library can no longer vouch for the lease: an extension was refused or the
   * message stayed unextended past its visibility timeout (another consumer may be handling it
   * now), or the consumer stopped and its grace period ran out. A handler that does long work
   * should stop when it fires; its outcome is then not acknowledged.
   */
  readonly signal: AbortSignal;
}

export interface Delivery {
  readonly message: ReceivedMessage;
  /**
   * 1 on the first delivery. Above 1 these bytes have been handled before, by this process or
   * another one, possibly to completion: that is why handlerIsIdempotent must be true.
   */
  readonly receiveCount: number;
  readonly lease: Lease;
}

export function toReceivedMessage(message: Message): ReceivedMessage {
  const attributes: Record<string, string> = { ...(message.Attributes ?? {}) };
  const groupId = attributes['MessageGroupId'];
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    messageAttributes: { ...(message.MessageAttributes ?? {}) },
    attributes,
    ...(groupId !== undefined ? { messageGroupId: groupId } : {}),
  };
}

/** ApproximateReceiveCount, or 1 when the endpoint did not send it. */
export function receiveCountOf(message: Message): number {
  const count = Number(message.Attributes?.['ApproximateReceiveCount'] ?? '1');
  return Number.isInteger(count) && count >= 1 ? count : 1;
}
