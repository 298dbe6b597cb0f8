/**
 * Decoding of tuple keys (layout in key-codec.ts): whole keys, keys from a known element boundary,
 * one element at a time (KeyReader), and the well-formedness checks the codec of transactions relies on.
 */
import {
  escapeByte,
  KeyDecodingError,
  maxSafeBigint,
  tagBytes,
  tagIntMax,
  tagIntZero,
  tagString,
  type KeyElement,
} from './key-tags.js';

// ignoreBOM: a string that starts with U+FEFF keeps it (by default a decoder drops a leading BOM).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
