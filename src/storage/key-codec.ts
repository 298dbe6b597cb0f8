/**
 * Order-preserving tuple encoding of keys (FoundationDB's tuple layer is the model).
 *
 * A key is a tuple of elements; `encodeKey(a) < encodeKey(b)` (bytewise) exactly when `a < b`
 * under this order:
 * - elements compare left to right; a tuple that is a prefix of another sorts first;
 * - elements of different types order by type: bytes < string < integer;
 * - byte strings compare bytewise; strings by their UTF-8 bytes (which is Unicode code point
 *   order, not JavaScript's UTF-16 `<`); integers numerically.
 *
 * Layout of one element:
 * - bytes:   0x01, the bytes with 0x00 written as 0x01 0x01 and 0x01 as 0x01 0x02, then a 0x00
 *            terminator (the only 0x00 of the element);
 * - string:  0x02, its UTF-8 bytes escaped and terminated the same way;
 * - integer: 0x14 + n, then the value in n big-endian bytes, n minimal (0 is the single byte 0x14).
 *
 * Integers are unsigned, 0 ≤ i ≤ 2^64-1. A `number` (a non-negative safe integer) and a `bigint`
 * of the same value encode identically; decoding yields a `number` when the value is a safe
 * integer and a `bigint` otherwise, so decode(encode(t)) equals t up to that normalization.
 *
 * Every variable-length element is terminated and embedded zeros are escaped, so no encoded
 * tuple is a byte prefix of another unless the tuple itself is a prefix: one queue's keys can
 * never fall inside another queue's prefix range. Every element starts with a tag in
 * [0x01, 0x1c], which the MVCC layer relies on: a byte 0x00 right after a complete tuple never
 * starts another element (see version-key.ts).
 */
import { Buffer } from 'node:buffer';
import { RaftqError } from '../base/errors.js';
import type { KeyRange } from './txn.js';
import { ByteWriter } from './byte-writer.js';

export type KeyElement = string | number | bigint | Uint8Array;
export type KeyTuple = readonly KeyElement[];

const tagBytes = 0x01;
const tagString = 0x02;
const tagIntZero = 0x14;
const tagIntMax = tagIntZero + 8;
/** Escapes 0x00 (as 0x01 0x01) and itself (as 0x01 0x02): the escaped segment has no 0x00, and bytes keep their order. */
const escapeByte = 0x01;
const maxU64 = (1n << 64n) - 1n;

/** A tuple element that has no encoding: a negative, fractional or too large integer, a string with a lone surrogate. */
export class KeyEncodingError extends RaftqError {
  readonly code = 'KeyEncoding';
  constructor(
    readonly elementIndex: number,
    readonly reason: string,
  ) {
    super(`Cannot encode key element ${elementIndex}: ${reason}`);
  }
}

/** Bytes that are not the encoding of any tuple. */
export class KeyDecodingError extends RaftqError {
  readonly code = 'KeyDecoding';
  constructor(
    readonly offset: number,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot decode key at byte ${offset}: ${reason}`, options);
  }
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeKey(tuple: KeyTuple): Uint8Array {
  const writer = new ByteWriter(32);
  appendKey(writer, tuple);
  return writer.finish();
}

/** Appends the encoding of `tuple` to `writer` (so callers can build a key and a suffix at once). */
export function appendKey(writer: ByteWriter, tuple: KeyTuple): void {
  tuple.forEach((element, index) => appendElement(writer, element, index));
}

function appendElement(writer: ByteWriter, element: KeyElement, index: number): void {
  if (typeof element === 'string') {
    if (hasLoneSurrogate(element))
      throw new KeyEncodingError(index, 'the string has a lone surrogate, which has no UTF-8 encoding');
    writer.byte(tagString);
    appendEscaped(writer, utf8Encoder.encode(element));
  } else if (typeof element === 'number') {
    if (!Number.isSafeInteger(element) || element < 0)
      throw new KeyEncodingError(index, `${element} is not a non-negative safe integer (use a bigint above 2^53-1)`);
    appendInteger(writer, BigInt(element));
  } else if (typeof element === 'bigint') {
    if (element < 0n || element > maxU64) throw new KeyEncodingError(index, `${element} is outside [0, 2^64-1]`);
    appendInteger(writer, element);
  } else if (element instanceof Uint8Array) {
    writer.byte(tagBytes);
    appendEscaped(writer, element);
  } else {
    throw new KeyEncodingError(index, `unsupported element type ${typeof element}`);
  }
}

const anySurrogate = /[\uD800-\uDFFF]/;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasLoneSurrogate(text: string): boolean {
  return anySurrogate.test(text) && loneSurrogate.test(text);
}

function appendEscaped(writer: ByteWriter, raw: Uint8Array): void {
  if (raw.indexOf(0) === -1 && raw.indexOf(escapeByte) === -1) {
    writer.bytes(raw);
  } else {
    for (const byte of raw) {
      if (byte === 0) writer.bytes(escapedZero);
      else if (byte === escapeByte) writer.bytes(escapedEscape);
      else writer.byte(byte);
    }
  }
  writer.byte(0);
}

const escapedZero = Uint8Array.of(escapeByte, 0x01);
const escapedEscape = Uint8Array.of(escapeByte, 0x02);

function appendInteger(writer: ByteWriter, value: bigint): void {
  let lengthBytes = 0;
  for (let rest = value; rest > 0n; rest >>= 8n) lengthBytes++;
  writer.byte(tagIntZero + lengthBytes);
  for (let i = lengthBytes - 1; i >= 0; i--) writer.byte(Number((value >> BigInt(8 * i)) & 0xffn));
}

export function decodeKey(key: Uint8Array): KeyElement[] {
  return decodeKeyFrom(key, 0);
}

/**
 * The elements of `key` from byte `start`, which must be where an element begins (the length of
 * an encoded prefix of the key): what a reader of many keys under one known prefix decodes.
 */
export function decodeKeyFrom(key: Uint8Array, start: number): KeyElement[] {
  const elements: KeyElement[] = [];
  let offset = start;
  while (offset < key.length) {
    const tag = key[offset] as number;
    if (tag === tagBytes || tag === tagString) {
      const { raw, next } = readEscaped(key, offset + 1);
      if (tag === tagBytes) elements.push(raw);
      else {
        try {
          elements.push(utf8Decoder.decode(raw));
        } catch (cause) {
          throw new KeyDecodingError(offset, 'a string element is not valid UTF-8', { cause });
        }
      }
      offset = next;
    } else if (tag >= tagIntZero && tag <= tagIntMax) {
      const lengthBytes = tag - tagIntZero;
      const end = offset + 1 + lengthBytes;
      if (end > key.length) throw new KeyDecodingError(offset, 'an integer element is cut short');
      if (lengthBytes > 0 && key[offset + 1] === 0)
        throw new KeyDecodingError(offset, 'an integer element has a leading zero byte');
      elements.push(readInteger(key, offset + 1, end));
      offset = end;
    } else {
      throw new KeyDecodingError(offset, `unknown type tag 0x${tag.toString(16).padStart(2, '0')}`);
    }
  }
  return elements;
}

function readEscaped(key: Uint8Array, start: number): { raw: Uint8Array; next: number } {
  const end = escapedEnd(key, start);
  if (end === -1) throw new KeyDecodingError(start, 'a string or bytes element has no terminator, or a bad escape');
  const escaped = key.subarray(start, end);
  if (escaped.indexOf(escapeByte) === -1) return { raw: escaped.slice(), next: end + 1 };
  const writer = new ByteWriter(escaped.length);
  for (let i = 0; i < escaped.length; i++) {
    const byte = escaped[i] as number;
    if (byte === escapeByte) writer.byte(escaped[++i] === 0x01 ? 0x00 : escapeByte);
    else writer.byte(byte);
  }
  return { raw: writer.finish(), next: end + 1 };
}

/**
 * Index of the terminating zero of an escaped segment starting at `start`, or -1 if it has none
 * or holds an escape byte not followed by 0x01 or 0x02.
 */
function escapedEnd(key: Uint8Array, start: number): number {
  const end = key.indexOf(0, start);
  if (end === -1) return -1;
  for (let i = key.indexOf(escapeByte, start); i !== -1 && i < end; i = key.indexOf(escapeByte, i + 2)) {
    const escaped = key[i + 1];
    if (escaped !== 0x01 && escaped !== 0x02) return -1;
  }
  return end;
}

function readInteger(key: Uint8Array, start: number, end: number): number | bigint {
  if (end - start <= 6) {
    let value = 0;
    for (let i = start; i < end; i++) value = value * 256 + (key[i] as number);
    return value;
  }
  let value = 0n;
  for (let i = start; i < end; i++) value = (value << 8n) | BigInt(key[i] as number);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/**
 * True when `key` is the encoding of some tuple (tags, escapes, terminators and minimal integers
 * are checked; UTF-8 validity of strings is not, as it does not affect order). Cheaper than
 * decodeKey: nothing is allocated.
 */
export function isWellFormedKey(key: Uint8Array): boolean {
  let offset = 0;
  while (offset < key.length) {
    offset = elementEnd(key, offset);
    if (offset === -1) return false;
  }
  return true;
}

/**
 * The offset just past the well-formed element that starts at `offset` of `bytes`, or -1 when
 * no well-formed element starts there (an unknown tag, no terminator, a cut or non-minimal integer).
 */
export function elementEnd(bytes: Uint8Array, offset: number): number {
  const tag = bytes[offset];
  if (tag === tagBytes || tag === tagString) {
    const end = escapedEnd(bytes, offset + 1);
    return end === -1 ? -1 : end + 1;
  }
  if (tag !== undefined && tag >= tagIntZero && tag <= tagIntMax) {
    const lengthBytes = tag - tagIntZero;
    if (offset + 1 + lengthBytes > bytes.length) return -1;
    if (lengthBytes > 0 && bytes[offset + 1] === 0) return -1;
    return offset + 1 + lengthBytes;
  }
  return -1;
}

/**
 * All keys whose tuple starts with the elements of `prefix`, the prefix tuple itself included.
 * `lt` appends 0xff, which is above every element tag, so it bounds every extension.
 */
export function prefixRange(prefix: KeyTuple): KeyRange {
  const gte = encodeKey(prefix);
  const lt = new Uint8Array(gte.length + 1);
  lt.set(gte);
  lt[gte.length] = 0xff;
  return { gte, lt };
}

/** The smallest byte string greater than `key` (for paging: resume a scan after the last key seen). */
export function keySuccessor(key: Uint8Array): Uint8Array {
  const next = new Uint8Array(key.length + 1);
  next.set(key);
  return next;
}

/** Bytewise comparison: negative, zero or positive like `a - b`. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
