/**
 * The element tags of the tuple key encoding and its errors, shared by the encoder (key-codec.ts)
 * and the decoder (key-decode.ts); the layout itself is described in key-codec.ts.
 */
import { RaftqError } from '../base/errors.js';

export type KeyElement = string | number | bigint | Uint8Array;
export type KeyTuple = readonly KeyElement[];

export const tagBytes = 0x01;
export const tagString = 0x02;
export const tagIntZero = 0x14;
export const tagIntMax = tagIntZero + 8;
/** Escapes 0x00 (as 0x01 0x01) and itself (as 0x01 0x02): the escaped segment has no 0x00, and bytes keep their order. */
export const escapeByte = 0x01;
export const maxU64 = (1n << 64n) - 1n;

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
/** The largest safe integer as a bigint: decoded integers up to it are numbers, larger ones bigints. */
export const maxSafeBigint = BigInt(Number.MAX_SAFE_INTEGER);
