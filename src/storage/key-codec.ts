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

// ignoreBOM: a string that starts with U+FEFF keeps it (by default a decoder drops a leading BOM).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Where encodeKey and its kin encode, to copy out exactly the key's bytes: one allocation a key.
 * Encoding is synchronous and calls nothing outside this module, so one writer serves every call.
 */
const scratch = new ByteWriter(256);

/**
 * Keys up to this size are cut out of shared slabs. A typed array of more than 64 bytes gets a
 * backing store of its own outside the V8 heap, which costs more than encoding the key, and most
 * queue row keys are 70-90 bytes. A slab lives as long as any key cut from it; keys live for a
 * request (stores and caches copy or stringify what they keep), so a slab pins little.
 */
const slabKeyBytesMax = 512;
const slabBytes = 8_192;
let slab = new Uint8Array(slabBytes);
let slabUsedBytes = 0;

/** The bytes written to the scratch writer, as a key of their own. */
function scratchKey(): Uint8Array {
  const lengthBytes = scratch.lengthBytes;
  if (lengthBytes > slabKeyBytesMax) return scratch.copy();
  if (slabUsedBytes + lengthBytes > slabBytes) {
    slab = new Uint8Array(slabBytes);
    slabUsedBytes = 0;
  }
  const start = slabUsedBytes;
  slab.set(scratch.finish(), start);
  slabUsedBytes += lengthBytes;
  return slab.subarray(start, start + lengthBytes);
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

const maxSafeBigint = BigInt(Number.MAX_SAFE_INTEGER);
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
      const end = escapedEnd(key, offset + 1);
      if (end === -1)
        throw new KeyDecodingError(offset + 1, 'a string or bytes element has no terminator, or a bad escape');
      elements.push(tag === tagBytes ? unescapeSegment(key, offset + 1, end) : readString(key, offset, end));
      offset = end + 1;
    } else if (tag >= tagIntZero && tag <= tagIntMax) {
      elements.push(readIntegerElement(key, offset));
      offset += 1 + tag - tagIntZero;
    } else {
      throw new KeyDecodingError(offset, `unknown type tag 0x${tag.toString(16).padStart(2, '0')}`);
    }
  }
  return elements;
}

/**
 * Reads a key's elements one at a time from `offset`, decoding only those asked for: what a
 * parser of one fixed key layout uses instead of decoding the whole tuple. A malformed element
 * throws KeyDecodingError, like decodeKey; an element of another type than asked is `undefined`
 * and is not consumed.
 */
export class KeyReader {
  constructor(
    readonly key: Uint8Array,
    public offset = 0,
  ) {}

  get isAtEnd(): boolean {
    return this.offset >= this.key.length;
  }

  string(): string | undefined {
    const { key, offset } = this;
    if (key[offset] !== tagString) return undefined;
    const end = escapedEnd(key, offset + 1);
    if (end === -1)
      throw new KeyDecodingError(offset + 1, 'a string or bytes element has no terminator, or a bad escape');
    const text = readString(key, offset, end);
    this.offset = end + 1;
    return text;
  }

  integer(): number | bigint | undefined {
    const { key, offset } = this;
    const tag = key[offset];
    if (tag === undefined || tag < tagIntZero || tag > tagIntMax) return undefined;
    const value = readIntegerElement(key, offset);
    this.offset = offset + 1 + tag - tagIntZero;
    return value;
  }

  /**
   * Whether the next element is the one `encoded` holds (a complete encoded element, e.g. a
   * KeyPrefix of one element): skipped if so. Compares bytes; nothing is decoded.
   */
  skipIf(encoded: Uint8Array): boolean {
    const { key, offset } = this;
    if (offset + encoded.length > key.length) return false;
    for (let i = 0; i < encoded.length; i++) if (key[offset + i] !== encoded[i]) return false;
    this.offset = offset + encoded.length;
    return true;
  }
}

/** Arrays of char codes by length, reused to build short ASCII strings without a decoder. */
const charCodesOfLength: number[][] = [];
const shortStringMaxBytes = 128;

/** The string element whose tag is at `tagOffset` and whose terminator is at `end` (escapes checked). */
function readString(key: Uint8Array, tagOffset: number, end: number): string {
  const start = tagOffset + 1;
  const length = end - start;
  if (length <= shortStringMaxBytes) {
    const codes = (charCodesOfLength[length] ??= new Array<number>(length).fill(0));
    let i = 0;
    for (; i < length; i++) {
      const byte = key[start + i] as number;
      if (byte === escapeByte || byte >= 0x80) break;
      codes[i] = byte;
    }
    if (i === length) return String.fromCharCode.apply(null, codes);
  }
  try {
    return utf8Decoder.decode(unescapeSegment(key, start, end));
  } catch (cause) {
    throw new KeyDecodingError(tagOffset, 'a string element is not valid UTF-8', { cause });
  }
}

/** The raw bytes of the escaped segment [start, end) (a copy, escapes undone; escapes already checked). */
function unescapeSegment(key: Uint8Array, start: number, end: number): Uint8Array {
  const escaped = key.subarray(start, end);
  if (escaped.indexOf(escapeByte) === -1) return escaped.slice();
  const raw = new Uint8Array(escaped.length);
  let at = 0;
  for (let i = 0; i < escaped.length; i++) {
    const byte = escaped[i] as number;
    if (byte === escapeByte) raw[at++] = escaped[++i] === 0x01 ? 0x00 : escapeByte;
    else raw[at++] = byte;
  }
  return raw.slice(0, at);
}

/**
 * Index of the terminating zero of an escaped segment starting at `start`, or -1 if it has none
 * or holds an escape byte not followed by 0x01 or 0x02.
 */
function escapedEnd(key: Uint8Array, start: number): number {
  for (let i = start; i < key.length; i++) {
    const byte = key[i];
    if (byte === 0) return i;
    if (byte === escapeByte) {
      const escaped = key[i + 1];
      if (escaped !== 0x01 && escaped !== 0x02) return -1;
      i++;
    }
  }
  return -1;
}

/** The integer element whose tag (known to be an integer tag) is at `offset`. */
function readIntegerElement(key: Uint8Array, offset: number): number | bigint {
  const lengthBytes = (key[offset] as number) - tagIntZero;
  const start = offset + 1;
  const end = start + lengthBytes;
  if (end > key.length) throw new KeyDecodingError(offset, 'an integer element is cut short');
  if (lengthBytes > 0 && key[start] === 0)
    throw new KeyDecodingError(offset, 'an integer element has a leading zero byte');
  if (lengthBytes <= 6) {
    let value = 0;
    for (let i = start; i < end; i++) value = value * 256 + (key[i] as number);
    return value;
  }
  let value = 0n;
  for (let i = start; i < end; i++) value = (value << 8n) | BigInt(key[i] as number);
  return value <= maxSafeBigint ? Number(value) : value;
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
