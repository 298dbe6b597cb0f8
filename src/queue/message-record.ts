/**
 * The data row of a message: everything needed to deliver it, find its index rows and validate
 * a receipt handle. Stored as JSON with binary attribute values in base64.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';
import type { MessageAttributes, MessageAttributeValue } from './queue-api.js';

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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface StoredAttributeValue {
  t: string;
  s?: string;
  b?: string;
}

function storeAttributes(attributes: MessageAttributes): Record<string, StoredAttributeValue> {
  const stored: Record<string, StoredAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const entry: StoredAttributeValue = { t: value.dataType };
    if (value.stringValue !== undefined) entry.s = value.stringValue;
    if (value.binaryValue !== undefined) entry.b = Buffer.from(value.binaryValue.buffer, value.binaryValue.byteOffset, value.binaryValue.byteLength).toString('base64');
    stored[name] = entry;
  }
  return stored;
}

export function encodeMessageRecord(record: MessageRecord): Uint8Array {
  return encoder.encode(
    JSON.stringify({
      ...record,
      order: record.order.toString(),
      messageAttributes: storeAttributes(record.messageAttributes),
      systemAttributes: storeAttributes(record.systemAttributes),
    }),
  );
}

export function decodeMessageRecord(bytes: Uint8Array): MessageRecord {
  const raw = JSON.parse(decoder.decode(bytes)) as unknown;
  assert(typeof raw === 'object' && raw !== null, 'corrupt message row: not an object');
  const row = raw as Record<string, unknown>;
  const text = (name: string): string => {
    const value = row[name];
    assert(typeof value === 'string', `corrupt message row: ${name} is not a string`);
    return value;
  };
  const count = (name: string): number => {
    const value = row[name];
    assert(typeof value === 'number' && Number.isFinite(value), `corrupt message row: ${name} is not a number`);
    return value;
  };
  const optionalText = (name: string): { [key: string]: string } => (row[name] === undefined ? {} : { [name]: text(name) });
  const optionalCount = (name: string): { [key: string]: number } => (row[name] === undefined ? {} : { [name]: count(name) });
  return {
    messageId: text('messageId'),
    body: text('body'),
    messageAttributes: loadAttributes(row['messageAttributes'] as Record<string, StoredAttributeValue> | undefined),
    systemAttributes: loadAttributes(row['systemAttributes'] as Record<string, StoredAttributeValue> | undefined),
    senderId: text('senderId'),
    sentAtMs: count('sentAtMs'),
    // Rows written before retentionStartMs existed start their retention at the send.
    retentionStartMs: row['retentionStartMs'] === undefined ? count('sentAtMs') : count('retentionStartMs'),
    partition: count('partition'),
    visibleAtMs: count('visibleAtMs'),
    order: BigInt(text('order')),
    receiveCount: count('receiveCount'),
    ...optionalCount('firstReceiveAtMs'),
    ...optionalCount('claimedAtMs'),
    ...optionalText('receiptToken'),
    ...optionalText('messageGroupId'),
    ...optionalText('messageDeduplicationId'),
    ...optionalText('sequenceNumber'),
    ...optionalText('deadLetterSourceArn'),
  };
}

function loadAttributes(stored: Record<string, StoredAttributeValue> | undefined): MessageAttributes {
  assert(stored === undefined || (typeof stored === 'object' && stored !== null), 'corrupt message row: attributes are not an object');
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, entry] of Object.entries(stored ?? {})) {
    assert(typeof entry.t === 'string' && (entry.s === undefined || typeof entry.s === 'string') && (entry.b === undefined || typeof entry.b === 'string'), `corrupt message row: attribute ${name}`);
    attributes[name] = {
      dataType: entry.t,
      ...(entry.s !== undefined ? { stringValue: entry.s } : {}),
      ...(entry.b !== undefined ? { binaryValue: new Uint8Array(Buffer.from(entry.b, 'base64')) } : {}),
    };
  }
  return attributes;
}

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
  return bytes.byteLength >= 9 ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(1) : undefined;
}
