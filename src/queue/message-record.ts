/**
 * The data row of a message: everything needed to deliver it, find its index rows and validate
 * a receipt handle. Stored in a binary layout (message-data-row.ts).
 */
import { Buffer } from 'node:buffer';
import type { MessageAttributes } from './queue-api.js';

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
  readonly firstReceiveAtMs?: number;
  /** When the current receive claimed it: ChangeMessageVisibility's 12-hour cap counts from here. */
  readonly claimedAtMs?: number;
  /** The token of the current receive; a receipt handle with another token is stale. */
  readonly receiptToken?: string;
  readonly messageGroupId?: string;
  readonly messageDeduplicationId?: string;
  /** FIFO: the decimal SequenceNumber (equal to `order`). */
  readonly sequenceNumber?: string;
  readonly deadLetterSourceArn?: string;
}

export function isInFlight(record: MessageRecord, nowMs: number): boolean {
  return record.receiptToken !== undefined && record.visibleAtMs > nowMs;
}

export function isExpired(record: MessageRecord, retentionSeconds: number, nowMs: number): boolean {
  return nowMs >= record.retentionStartMs + retentionSeconds * 1000;
}

// The data row's stored form: a binary layout (rows of the older JSON layout are still read).
export { decodeMessageRecord, encodeMessageRecord } from './message-data-row.js';

/**
 * The vis row's value: whether the message was never received when the row was written (`pending`:
 * it has no state row; `inflight`: a state row says when it is visible), then, in rows written
 * since the queue index, the start of its retention period (float64 big-endian), so that the index
 * can pass expired messages without reading them. Older rows are the one byte.
 */
export type VisibilityState = 'pending' | 'inflight';

export function encodeVisibilityState(state: VisibilityState, retentionStartMs?: number): Uint8Array {
  const stateByte = state === 'pending' ? 0x70 : 0x66;
  if (retentionStartMs === undefined) return Uint8Array.of(stateByte);
  const bytes = new Uint8Array(9);
  bytes[0] = stateByte;
  new DataView(bytes.buffer).setFloat64(1, retentionStartMs);
  return bytes;
}

export function decodeVisibilityState(bytes: Uint8Array): VisibilityState {
  return bytes[0] === 0x66 ? 'inflight' : 'pending';
}

/** A vis row's value says its message was never received (so it has no state row). */
export function isNeverReceivedVisibilityValue(bytes: Uint8Array): boolean {
  return decodeVisibilityState(bytes) === 'pending';
}

/** The retention start a vis row's value carries; undefined for the older one-byte rows. */
export function retentionStartMsOfVisibilityValue(bytes: Uint8Array): number | undefined {
  return bytes.byteLength >= 9
    ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(1)
    : undefined;
}
