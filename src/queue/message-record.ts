/**
 * The data row of a message: everything needed to deliver it, find its index rows and validate
 * a receipt handle. Stored in a binary layout (message-data-row.ts).
 */
import { Buffer } from 'node:buffer';
import type { MessageAttributes } from './queue-api.js';

/**
 * Every field is always present, `undefined` when it does not apply, and every record is built
 * with its fields in the order below: all records then share one hidden class, and the reads of
 * the message path (claim, delete, encode, answer) stay monomorphic. Records built with optional
 * fields left out or spread in came in many shapes: a consumed message cost 15 % more CPU in
 * process (docs/BENCHMARKS.md, "Message records of one shape").
 */
export interface MessageRecord {
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: MessageAttributes;
  readonly systemAttributes: MessageAttributes;
  readonly senderId: string;
  readonly sentAtMs: number;
  /** Start of the retention period: sentAtMs, except for FIFO dead-letter copies (AWS resets it). */
  readonly retentionStartMs: number;
  readonly partition: number;
  /** The vis row's time and order: with messageId they name the vis row exactly. */
  readonly visibleAtMs: number;
  readonly order: bigint;
  readonly receiveCount: number;
  readonly firstReceiveAtMs: number | undefined;
  /** When the current receive claimed it: ChangeMessageVisibility's 12-hour cap counts from here. */
  readonly claimedAtMs: number | undefined;
  /** The token of the current receive; a receipt handle with another token is stale. */
  readonly receiptToken: string | undefined;
  readonly messageGroupId: string | undefined;
  readonly messageDeduplicationId: string | undefined;
  /** FIFO: the decimal SequenceNumber (equal to `order`). */
  readonly sequenceNumber: string | undefined;
  readonly deadLetterSourceArn: string | undefined;
}

/** What a record may leave out: the fields that are `undefined` unless they apply. */
type OptionalField =
  | 'firstReceiveAtMs'
  | 'claimedAtMs'
  | 'receiptToken'
  | 'messageGroupId'
  | 'messageDeduplicationId'
  | 'sequenceNumber'
  | 'deadLetterSourceArn';

export type MessageRecordFields = Omit<MessageRecord, OptionalField> & {
  readonly [K in OptionalField]?: MessageRecord[K];
};

/** The one way to build a record: every field present, in the interface's order (see above). */
export function messageRecord(fields: MessageRecordFields): MessageRecord {
  return {
    messageId: fields.messageId,
    body: fields.body,
    messageAttributes: fields.messageAttributes,
    systemAttributes: fields.systemAttributes,
    senderId: fields.senderId,
    sentAtMs: fields.sentAtMs,
    retentionStartMs: fields.retentionStartMs,
    partition: fields.partition,
    visibleAtMs: fields.visibleAtMs,
    order: fields.order,
    receiveCount: fields.receiveCount,
    firstReceiveAtMs: fields.firstReceiveAtMs,
    claimedAtMs: fields.claimedAtMs,
    receiptToken: fields.receiptToken,
    messageGroupId: fields.messageGroupId,
    messageDeduplicationId: fields.messageDeduplicationId,
    sequenceNumber: fields.sequenceNumber,
    deadLetterSourceArn: fields.deadLetterSourceArn,
  };
}

/** The record with the receive fields given (each one replaces the record's, `undefined` included). */
export function withReceiveFields(
  record: MessageRecord,
  receive: Pick<MessageRecord, 'visibleAtMs' | 'receiveCount' | 'firstReceiveAtMs' | 'claimedAtMs' | 'receiptToken'>,
): MessageRecord {
  return messageRecord({
    ...record,
    visibleAtMs: receive.visibleAtMs,
    receiveCount: receive.receiveCount,
    firstReceiveAtMs: receive.firstReceiveAtMs,
    claimedAtMs: receive.claimedAtMs,
    receiptToken: receive.receiptToken,
  });
}

export function isInFlight(record: MessageRecord, nowMs: number): boolean {
  return record.receiptToken !== undefined && record.visibleAtMs > nowMs;
}

export function isExpired(record: MessageRecord, retentionSeconds: number, nowMs: number): boolean {
  return nowMs >= record.retentionStartMs + retentionSeconds * 1000;
}

// The data row's stored form: a binary layout (rows of the older JSON layout are still read).
export { decodeMessageRecord, encodeMessageRecord } from './layout/message-data-row.js';
