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
 *
 * This file encodes; decoding is in key-decode.ts and the tags and errors both share in
 * key-tags.ts (everything is exported from here too).
 */
import { Buffer } from 'node:buffer';
import type { KeyRange } from './txn.js';
import { slabArray } from './byte-slab.js';
import { ByteWriter } from './byte-writer.js';
import {
  escapeByte,
  KeyEncodingError,
  maxSafeBigint,
  maxU64,
  tagBytes,
  tagIntZero,
  tagString,
  type KeyElement,
  type KeyTuple,
} from './key-tags.js';

export { KeyDecodingError, KeyEncodingError, type KeyElement, type KeyTuple } from './key-tags.js';
export { decodeKey, decodeKeyFrom, elementEnd, isWellFormedKey, KeyReader } from './key-decode.js';

/**
 * Where encodeKey and its kin encode, to copy out exactly the key's bytes: one allocation a key.
 * Encoding is synchronous and calls nothing outside this module, so one writer serves every call.
 */
const scratch = new ByteWriter(256);

/** The bytes written to the scratch writer, as a key of their own (byte-slab.ts: most keys are cut from a slab). */
function scratchKey(): Uint8Array {
  const key = slabArray(scratch.lengthBytes);
  key.set(scratch.finish());
  return key;
}

export function encodeKey(tuple: KeyTuple): Uint8Array {
  scratch.reset();
  appendElements(scratch, tuple, 0);
  return scratchKey();
}

/** Appends the encoding of `tuple` to `writer` (so callers can build a key and a suffix at once). */
export function appendKey(writer: ByteWriter, tuple: KeyTuple): void {
  appendElements(writer, tuple, 0);
}

/**
 * An encoded tuple prefix, kept as bytes so that the keys under it are built by appending only
 * their own elements (a queue generation's rows all start with the same five elements).
 */
export class KeyPrefix {
  private constructor(
    readonly bytes: Uint8Array,
    /** How many elements the prefix has: where the suffix's element indexes start in errors. */
    readonly elementCount: number,
  ) {}

  static of(tuple: KeyTuple): KeyPrefix {
    return new KeyPrefix(encodeKey(tuple), tuple.length);
  }

  /** The prefix followed by `suffix`, as a prefix itself. */
  extend(suffix: KeyTuple): KeyPrefix {
    return new KeyPrefix(this.key(suffix), this.elementCount + suffix.length);
  }

  /** encodeKey of the prefix's tuple followed by `suffix`. */
  key(suffix: KeyTuple): Uint8Array {
    this.writeWith(suffix);
    return scratchKey();
  }

  /** prefixRange of the prefix's tuple followed by `suffix`. */
  range(suffix: KeyTuple = []): KeyRange {
    this.writeWith(suffix);
    const gte = scratchKey();
    scratch.byte(0xff);
    return { gte, lt: scratchKey() };
  }

  private writeWith(suffix: KeyTuple): void {
    scratch.reset();
    scratch.bytes(this.bytes);
    appendElements(scratch, suffix, this.elementCount);
  }
}

function appendElements(writer: ByteWriter, tuple: KeyTuple, firstIndex: number): void {
  for (let i = 0; i < tuple.length; i++) appendElement(writer, tuple[i] as KeyElement, firstIndex + i);
}

const twoTo32 = 0x1_0000_0000;

function appendElement(writer: ByteWriter, element: KeyElement, index: number): void {
  if (typeof element === 'string') {
    appendString(writer, element, index);
  } else if (typeof element === 'number') {
    if (!Number.isSafeInteger(element) || element < 0)
      throw new KeyEncodingError(index, `${element} is not a non-negative safe integer (use a bigint above 2^53-1)`);
    appendU64(writer, Math.floor(element / twoTo32), element >>> 0);
  } else if (typeof element === 'bigint') {
    if (element < 0n || element > maxU64) throw new KeyEncodingError(index, `${element} is outside [0, 2^64-1]`);
    if (element <= maxSafeBigint) {
      const value = Number(element);
      appendU64(writer, Math.floor(value / twoTo32), value >>> 0);
    } else {
      appendU64(writer, Number(element >> 32n), Number(element & 0xffff_ffffn));
    }
  } else if (element instanceof Uint8Array) {
    appendBytes(writer, element);
  } else {
    throw new KeyEncodingError(index, `unsupported element type ${typeof element}`);
  }
}

/**
 * A string element. ASCII without 0x00/0x01 (every name and id the queue layer makes) is copied
 * code unit by code unit; anything else takes the UTF-8 path, which escapes and rejects lone surrogates.
 */
function appendString(writer: ByteWriter, text: string, index: number): void {
  const length = text.length;
  const buffer = writer.room(length + 2);
  const start = writer.lengthBytes;
  buffer[start] = tagString;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit <= escapeByte || unit >= 0x80) {
      appendUtf8String(writer, text, index);
      return;
    }
    buffer[start + 1 + i] = unit;
  }
  buffer[start + 1 + length] = 0;
  writer.advance(length + 2);
}

/**
 * The general string element: UTF-8, escaped, terminated. Nothing is counted as written unless
 * the whole string encodes, so a lone surrogate leaves the writer as it was.
 */
function appendUtf8String(writer: ByteWriter, text: string, index: number): void {
  const length = text.length;
  // At most 3 bytes a UTF-16 unit: an escaped byte takes 2, a BMP character 3, a surrogate pair 4.
  const buffer = writer.room(3 * length + 2);
  const start = writer.lengthBytes;
  let at = start;
  buffer[at++] = tagString;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (unit <= escapeByte) {
        // 0x00 as 0x01 0x01 and 0x01 as 0x01 0x02.
        buffer[at++] = escapeByte;
        buffer[at++] = unit + 1;
      } else {
        buffer[at++] = unit;
      }
    } else if (unit < 0x800) {
      buffer[at++] = 0xc0 | (unit >> 6);
      buffer[at++] = 0x80 | (unit & 0x3f);
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      const low = text.charCodeAt(i + 1);
      if (unit > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff))
        throw new KeyEncodingError(index, 'the string has a lone surrogate, which has no UTF-8 encoding');
      i++;
      const codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      buffer[at++] = 0xf0 | (codePoint >> 18);
      buffer[at++] = 0x80 | ((codePoint >> 12) & 0x3f);
      buffer[at++] = 0x80 | ((codePoint >> 6) & 0x3f);
      buffer[at++] = 0x80 | (codePoint & 0x3f);
    } else {
      buffer[at++] = 0xe0 | (unit >> 12);
      buffer[at++] = 0x80 | ((unit >> 6) & 0x3f);
      buffer[at++] = 0x80 | (unit & 0x3f);
    }
  }
  buffer[at++] = 0;
  writer.advance(at - start);
}

function appendBytes(writer: ByteWriter, raw: Uint8Array): void {
  const buffer = writer.room(2 * raw.length + 2);
  const start = writer.lengthBytes;
  let at = start;
  buffer[at++] = tagBytes;
  if (raw.indexOf(0) === -1 && raw.indexOf(escapeByte) === -1) {
    buffer.set(raw, at);
    at += raw.length;
  } else {
    for (const byte of raw) {
      if (byte <= escapeByte) {
        buffer[at++] = escapeByte;
        buffer[at++] = byte + 1;
      } else {
        buffer[at++] = byte;
      }
    }
  }
  buffer[at++] = 0;
  writer.advance(at - start);
}

/** An integer given as its high and low 32 bits: 0x14 + n, then n minimal big-endian bytes. */
function appendU64(writer: ByteWriter, high: number, low: number): void {
  const lengthBytes = high !== 0 ? 4 + byteLength32(high) : byteLength32(low);
  const buffer = writer.room(1 + lengthBytes);
  let at = writer.lengthBytes;
  buffer[at++] = tagIntZero + lengthBytes;
  for (let i = lengthBytes - 1; i >= 4; i--) buffer[at++] = (high >>> (8 * (i - 4))) & 0xff;
  for (let i = Math.min(lengthBytes, 4) - 1; i >= 0; i--) buffer[at++] = (low >>> (8 * i)) & 0xff;
  writer.advance(1 + lengthBytes);
}

/** Bytes needed for an unsigned 32-bit value without leading zeros (0 for 0). */
function byteLength32(value: number): number {
  if (value === 0) return 0;
  if (value < 0x100) return 1;
  if (value < 0x1_0000) return 2;
  if (value < 0x100_0000) return 3;
  return 4;
}

/**
 * All keys whose tuple starts with the elements of `prefix`, the prefix tuple itself included.
 * `lt` appends 0xff, which is above every element tag, so it bounds every extension.
 */
export function prefixRange(prefix: KeyTuple): KeyRange {
  scratch.reset();
  appendElements(scratch, prefix, 0);
  const gte = scratchKey();
  scratch.byte(0xff);
  return { gte, lt: scratchKey() };
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
