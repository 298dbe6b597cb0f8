/**
 * The data row's value (message-store.ts): a message's body, attributes, ids and the times a send
 * gave it. Written once per message and read by every receive, delete and visibility change, so
 * it is a fixed binary layout rather than JSON (no field names, no base64 for binary attribute
 * values, no number or bigint parsing from text):
 *
 *   byte 0       layout (0x02; rows of the older JSON layout start with '{')
 *   bytes 1–8    sentAtMs, float64 big-endian
 *   bytes 9–16   retentionStartMs, float64
 *   bytes 17–24  visibleAtMs, float64
 *   bytes 25–32  firstReceiveAtMs, float64 (NaN: none)
 *   bytes 33–40  claimedAtMs, float64 (NaN: none)
 *   bytes 41–48  order, uint64
 *   bytes 49–52  partition, uint32
 *   bytes 53–56  receiveCount, uint32
 *   byte 57      which optional texts follow (bit i: optionalTexts[i])
 *   then texts, each a uint32 byte length and UTF-8: messageId, senderId, the optional texts
 *   present, body; then message attributes and system attributes, each a uint16 count and per
 *   attribute: name, data type (texts), a kind byte (bit 0: string value, bit 1: binary value)
 *   and the values present (a binary value as a uint32 length and its bytes).
 *
 * A row is validated as it is read: a wrong layout byte, a length past the end or bytes left
 * over fail the read ("corrupt message row"), never yield a half-decoded message.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.js';
import type { MessageAttributes, MessageAttributeValue } from '../queue-api.js';
import { messageRecord, type MessageRecord } from '../message-record.js';

const binaryLayout = 0x02;
const legacyJsonStart = 0x7b; // '{'
const headerBytes = 58;
const optionalTexts = [
  'receiptToken',
  'messageGroupId',
  'messageDeduplicationId',
  'sequenceNumber',
  'deadLetterSourceArn',
] as const;
type OptionalText = (typeof optionalTexts)[number];
const uint64Max = (1n << 64n) - 1n;

/** Sizes first, then one allocation: texts are measured with Buffer.byteLength and written in place. */
export function encodeMessageRecord(record: MessageRecord): Uint8Array {
  assert(record.order >= 0n && record.order <= uint64Max, 'message order out of range');
  const texts: string[] = [record.messageId, record.senderId];
  let presence = 0;
  optionalTexts.forEach((field, bit) => {
    const value = record[field];
    if (value === undefined) return;
    presence |= 1 << bit;
    texts.push(value);
  });
  texts.push(record.body);
  let size = headerBytes;
  for (const text of texts) size += 4 + Buffer.byteLength(text, 'utf8');
  size += attributesSize(record.messageAttributes) + attributesSize(record.systemAttributes);

  // Not from Buffer's shared pool: a stored row must not keep a pool slab alive.
  const bytes = Buffer.allocUnsafeSlow(size);
  bytes[0] = binaryLayout;
  bytes.writeDoubleBE(record.sentAtMs, 1);
  bytes.writeDoubleBE(record.retentionStartMs, 9);
  bytes.writeDoubleBE(record.visibleAtMs, 17);
  bytes.writeDoubleBE(record.firstReceiveAtMs ?? Number.NaN, 25);
  bytes.writeDoubleBE(record.claimedAtMs ?? Number.NaN, 33);
  bytes.writeBigUInt64BE(record.order, 41);
  bytes.writeUInt32BE(record.partition, 49);
  bytes.writeUInt32BE(record.receiveCount, 53);
  bytes[57] = presence;
  let offset = headerBytes;
  for (const text of texts) offset = writeText(bytes, offset, text);
  offset = writeAttributes(bytes, offset, record.messageAttributes);
  offset = writeAttributes(bytes, offset, record.systemAttributes);
  assert(offset === size, 'message row size mismatch');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A data row of the older JSON layout: its message was stored with an age row, whatever its times. */
export function isLegacyDataRow(bytes: Uint8Array): boolean {
  return bytes[0] === legacyJsonStart;
}

export function decodeMessageRecord(bytes: Uint8Array): MessageRecord {
  if (bytes[0] === legacyJsonStart) return decodeLegacyMessageRecord(bytes);
  assert(
    bytes[0] === binaryLayout && bytes.byteLength >= headerBytes,
    'corrupt message row: unknown layout or truncated header',
  );
  const reader = new RowReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const { buffer } = reader;
  const firstReceiveAtMs = buffer.readDoubleBE(25);
  const claimedAtMs = buffer.readDoubleBE(33);
  const presence = buffer[57] ?? 0;
  reader.offset = headerBytes;
  const messageId = reader.text();
  const senderId = reader.text();
  const optional: { -readonly [K in OptionalText]?: string } = {};
  optionalTexts.forEach((field, bit) => {
    if ((presence & (1 << bit)) !== 0) optional[field] = reader.text();
  });
  // (messageRecord reads the optional texts by name, so `optional`'s own shape never reaches a record.)
  const body = reader.text();
  const messageAttributes = reader.attributes();
  const systemAttributes = reader.attributes();
  assert(reader.offset === buffer.byteLength, 'corrupt message row: bytes after the last field');
  const sentAtMs = buffer.readDoubleBE(1);
  const retentionStartMs = buffer.readDoubleBE(9);
  const visibleAtMs = buffer.readDoubleBE(17);
  assert(
    Number.isFinite(sentAtMs) && Number.isFinite(retentionStartMs) && Number.isFinite(visibleAtMs),
    'corrupt message row: a time is not a number',
  );
  return messageRecord({
    messageId,
    body,
    messageAttributes,
    systemAttributes,
    senderId,
    sentAtMs,
    retentionStartMs,
    partition: buffer.readUInt32BE(49),
    visibleAtMs,
    order: buffer.readBigUInt64BE(41),
    receiveCount: buffer.readUInt32BE(53),
    firstReceiveAtMs: Number.isNaN(firstReceiveAtMs) ? undefined : firstReceiveAtMs,
    claimedAtMs: Number.isNaN(claimedAtMs) ? undefined : claimedAtMs,
    receiptToken: optional.receiptToken,
    messageGroupId: optional.messageGroupId,
    messageDeduplicationId: optional.messageDeduplicationId,
    sequenceNumber: optional.sequenceNumber,
    deadLetterSourceArn: optional.deadLetterSourceArn,
  });
}

function attributesSize(attributes: MessageAttributes): number {
  let size = 2;
  for (const [name, value] of Object.entries(attributes)) {
    size += 4 + Buffer.byteLength(name, 'utf8') + 4 + Buffer.byteLength(value.dataType, 'utf8') + 1;
    if (value.stringValue !== undefined) size += 4 + Buffer.byteLength(value.stringValue, 'utf8');
    if (value.binaryValue !== undefined) size += 4 + value.binaryValue.byteLength;
  }
  return size;
}

function writeText(bytes: Buffer, offset: number, text: string): number {
  const length = bytes.write(text, offset + 4, 'utf8');
  bytes.writeUInt32BE(length, offset);
  return offset + 4 + length;
}

function writeAttributes(bytes: Buffer, offset: number, attributes: MessageAttributes): number {
  const entries = Object.entries(attributes);
  bytes.writeUInt16BE(entries.length, offset);
  offset += 2;
  for (const [name, value] of entries) {
    offset = writeText(bytes, offset, name);
    offset = writeText(bytes, offset, value.dataType);
    bytes[offset++] = (value.stringValue !== undefined ? 1 : 0) | (value.binaryValue !== undefined ? 2 : 0);
    if (value.stringValue !== undefined) offset = writeText(bytes, offset, value.stringValue);
    if (value.binaryValue !== undefined) {
      bytes.writeUInt32BE(value.binaryValue.byteLength, offset);
      bytes.set(value.binaryValue, offset + 4);
      offset += 4 + value.binaryValue.byteLength;
    }
  }
  return offset;
}

/** Reads the variable part of a row, checking every length against the row's end. */
class RowReader {
  offset = 0;

  constructor(readonly buffer: Buffer) {}

  private take(length: number): number {
    const start = this.offset;
    assert(length >= 0 && start + length <= this.buffer.byteLength, 'corrupt message row: a field runs past the end');
    this.offset += length;
    return start;
  }

  private uint32(): number {
    return this.buffer.readUInt32BE(this.take(4));
  }

  text(): string {
    const length = this.uint32();
    const start = this.take(length);
    return this.buffer.toString('utf8', start, start + length);
  }

  attributes(): MessageAttributes {
    const count = this.buffer.readUInt16BE(this.take(2));
    const attributes: Record<string, MessageAttributeValue> = {};
    for (let i = 0; i < count; i++) {
      const name = this.text();
      const dataType = this.text();
      const kind = this.buffer[this.take(1)] ?? 0;
      assert(kind <= 3, 'corrupt message row: attribute kind');
      const stringValue = (kind & 1) !== 0 ? this.text() : undefined;
      let binaryValue: Uint8Array | undefined;
      if ((kind & 2) !== 0) {
        const length = this.uint32();
        const start = this.take(length);
        // A copy: the attribute must not keep the whole row (or the page it was read with) alive.
        binaryValue = new Uint8Array(this.buffer.subarray(start, start + length));
      }
      setOwn(attributes, name, {
        dataType,
        ...(stringValue !== undefined ? { stringValue } : {}),
        ...(binaryValue !== undefined ? { binaryValue } : {}),
      });
    }
    return attributes;
  }
}

/** An own property even for a name such as "__proto__" (a valid attribute name), which plain assignment would turn into a prototype. */
function setOwn(attributes: Record<string, MessageAttributeValue>, name: string, value: MessageAttributeValue): void {
  Object.defineProperty(attributes, name, { value, enumerable: true, writable: true, configurable: true });
}

// Rows written before the binary layout: JSON, binary attribute values in base64.

interface StoredAttributeValue {
  t: string;
  s?: string;
  b?: string;
}

const decoder = new TextDecoder();

function decodeLegacyMessageRecord(bytes: Uint8Array): MessageRecord {
  const raw = JSON.parse(decoder.decode(bytes)) as unknown;
  assert(typeof raw === 'object' && raw !== null, 'corrupt message row: not an object');
  const row = raw as Record<string, unknown>;
  const text = (name: string): string => {
    const value = row[name];
    assert(typeof value === 'string', () => `corrupt message row: ${name} is not a string`);
    return value;
  };
  const count = (name: string): number => {
    const value = row[name];
    assert(typeof value === 'number' && Number.isFinite(value), () => `corrupt message row: ${name} is not a number`);
    return value;
  };
  const optionalText = (name: string): string | undefined => (row[name] === undefined ? undefined : text(name));
  const optionalCount = (name: string): number | undefined => (row[name] === undefined ? undefined : count(name));
  return messageRecord({
    messageId: text('messageId'),
    body: text('body'),
    messageAttributes: loadLegacyAttributes(
      row['messageAttributes'] as Record<string, StoredAttributeValue> | undefined,
    ),
    systemAttributes: loadLegacyAttributes(row['systemAttributes'] as Record<string, StoredAttributeValue> | undefined),
    senderId: text('senderId'),
    sentAtMs: count('sentAtMs'),
    // Rows written before retentionStartMs existed start their retention at the send.
    retentionStartMs: row['retentionStartMs'] === undefined ? count('sentAtMs') : count('retentionStartMs'),
    partition: count('partition'),
    visibleAtMs: count('visibleAtMs'),
    order: BigInt(text('order')),
    receiveCount: count('receiveCount'),
    firstReceiveAtMs: optionalCount('firstReceiveAtMs'),
    claimedAtMs: optionalCount('claimedAtMs'),
    receiptToken: optionalText('receiptToken'),
    messageGroupId: optionalText('messageGroupId'),
    messageDeduplicationId: optionalText('messageDeduplicationId'),
    sequenceNumber: optionalText('sequenceNumber'),
    deadLetterSourceArn: optionalText('deadLetterSourceArn'),
  });
}

function loadLegacyAttributes(stored: Record<string, StoredAttributeValue> | undefined): MessageAttributes {
  assert(
    stored === undefined || (typeof stored === 'object' && stored !== null),
    'corrupt message row: attributes are not an object',
  );
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, entry] of Object.entries(stored ?? {})) {
    assert(
      typeof entry.t === 'string' &&
        (entry.s === undefined || typeof entry.s === 'string') &&
        (entry.b === undefined || typeof entry.b === 'string'),
      () => `corrupt message row: attribute ${name}`,
    );
    setOwn(attributes, name, {
      dataType: entry.t,
      ...(entry.s !== undefined ? { stringValue: entry.s } : {}),
      ...(entry.b !== undefined ? { binaryValue: new Uint8Array(Buffer.from(entry.b, 'base64')) } : {}),
    });
  }
  return attributes;
}

/** The older JSON layout, for tests that stage rows an older node wrote. */
export function encodeLegacyMessageRecord(record: MessageRecord): Uint8Array {
  const storeAttributes = (attributes: MessageAttributes): Record<string, StoredAttributeValue> => {
    const stored: Record<string, StoredAttributeValue> = {};
    for (const [name, value] of Object.entries(attributes)) {
      const entry: StoredAttributeValue = { t: value.dataType };
      if (value.stringValue !== undefined) entry.s = value.stringValue;
      if (value.binaryValue !== undefined)
        entry.b = Buffer.from(
          value.binaryValue.buffer,
          value.binaryValue.byteOffset,
          value.binaryValue.byteLength,
        ).toString('base64');
      Object.defineProperty(stored, name, { value: entry, enumerable: true, writable: true, configurable: true });
    }
    return stored;
  };
  return new TextEncoder().encode(
    JSON.stringify({
      ...record,
      order: record.order.toString(),
      messageAttributes: storeAttributes(record.messageAttributes),
      systemAttributes: storeAttributes(record.systemAttributes),
    }),
  );
}
