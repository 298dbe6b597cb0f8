/**
 * The part of a message that receives change: when it is visible, how often it was received and
 * by which receive it is held now. A send stores the initial state inside the data row (no state
 * row: one row fewer per send); the first receive writes a state row of its own, which from then
 * on overrides what the data row says. A receive or a visibility change rewrites only this row:
 * never the body and attributes (which may be a MiB) that the data row holds, and never the vis
 * row, which stays where the send put it (message-store.ts).
 *
 * Stored in a fixed binary layout, so that the queue index can read the visibility time of every
 * applied state row without parsing it (visibleAtMsOfReceiveState):
 *   byte 0      layout version (0x01)
 *   bytes 1–8   visibleAtMs, float64 big-endian
 *   bytes 9–12  receiveCount, uint32 big-endian
 *   bytes 13–20 firstReceiveAtMs, float64 (NaN: none)
 *   bytes 21–28 claimedAtMs, float64 (NaN: none)
 *   bytes 29–   receiptToken, UTF-8, when byte 0 is 0x01 (a state without a token has 0x02)
 * Rows written before this layout are JSON (first byte '{'),
 * and their message's vis row moved with every receive: `isMovingVisRow` tells the message store.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.js';
import { readFloat64BE, readUint32BE, writeFloat64BE, writeUint32BE } from '../../base/big-endian.js';
import { slabArray } from '../../storage/byte-slab.js';
import type { MessageRecord } from '../message-record.js';
import { StoredJsonRow } from './stored-json-row.js';

/** Every field present, `undefined` when it does not apply (one shape, as MessageRecord). */
export interface ReceiveState {
  /** When the message is (again) visible. */
  readonly visibleAtMs: number;
  readonly receiveCount: number;
  readonly firstReceiveAtMs: number | undefined;
  /** When the current receive claimed it: ChangeMessageVisibility's 12-hour cap counts from here. */
  readonly claimedAtMs: number | undefined;
  /** The token of the current receive; a receipt handle with another token is stale. */
  readonly receiptToken: string | undefined;
}

/** What encodeReceiveState needs: the fields that do not apply may be left out. */
export type ReceiveStateFields = Pick<ReceiveState, 'visibleAtMs' | 'receiveCount'> & {
  readonly [K in 'firstReceiveAtMs' | 'claimedAtMs' | 'receiptToken']?: ReceiveState[K];
};

/** A decoded state row, and whether it is of the old layout, whose vis row moved with each receive. */
export interface StoredReceiveState {
  readonly state: ReceiveState;
  readonly isMovingVisRow: boolean;
}

const withToken = 0x01;
const withoutToken = 0x02;
const legacyJsonStart = 0x7b; // '{'
const headerBytes = 29;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One receive writes one of these per message, so it is built without a DataView (big-endian.ts)
 * in a slice of a shared slab (storage/byte-slab.ts): a row with a token is 65 bytes, just over
 * what V8 allocates inside its heap, and a buffer of its own cost ~1 µs more (2.7 µs per row in a
 * loop, against under 1 µs now). The row lives only as long as its transaction: the newest-version
 * cache, the engines and the entry encoding copy what they keep.
 */
export function encodeReceiveState(state: ReceiveStateFields): Uint8Array {
  const token = state.receiptToken;
  const bytes = slabArray(headerBytes + (token === undefined ? 0 : Buffer.byteLength(token, 'utf8')));
  bytes[0] = token === undefined ? withoutToken : withToken;
  writeFloat64BE(bytes, 1, state.visibleAtMs);
  writeUint32BE(bytes, 9, state.receiveCount);
  writeFloat64BE(bytes, 13, state.firstReceiveAtMs ?? Number.NaN);
  writeFloat64BE(bytes, 21, state.claimedAtMs ?? Number.NaN);
  if (token !== undefined) encoder.encodeInto(token, bytes.subarray(headerBytes));
  return bytes;
}

export function decodeReceiveState(bytes: Uint8Array): StoredReceiveState {
  if (bytes[0] === legacyJsonStart) return { state: decodeLegacyReceiveState(bytes), isMovingVisRow: true };
  assert(
    (bytes[0] === withToken || bytes[0] === withoutToken) && bytes.byteLength >= headerBytes,
    'corrupt receive-state row',
  );
  const firstReceiveAtMs = readFloat64BE(bytes, 13);
  const claimedAtMs = readFloat64BE(bytes, 21);
  const state: ReceiveState = {
    visibleAtMs: readFloat64BE(bytes, 1),
    receiveCount: readUint32BE(bytes, 9),
    firstReceiveAtMs: Number.isNaN(firstReceiveAtMs) ? undefined : firstReceiveAtMs,
    claimedAtMs: Number.isNaN(claimedAtMs) ? undefined : claimedAtMs,
    receiptToken: bytes[0] === withToken ? decoder.decode(bytes.subarray(headerBytes)) : undefined,
  };
  return { state, isMovingVisRow: false };
}

/** visibleAtMs of a state row, reading only the field (the queue index does this per applied row). */
export function visibleAtMsOfReceiveState(bytes: Uint8Array): number | undefined {
  if (bytes[0] === legacyJsonStart) return undefined;
  if ((bytes[0] !== withToken && bytes[0] !== withoutToken) || bytes.byteLength < headerBytes) return undefined;
  return readFloat64BE(bytes, 1);
}

/** The older JSON layout: { v: visibleAtMs, n: receiveCount, f?: firstReceiveAtMs, c?: claimedAtMs, t?: receiptToken }. */
function decodeLegacyReceiveState(bytes: Uint8Array): ReceiveState {
  const row = StoredJsonRow.parse(bytes, 'receive state');
  return {
    visibleAtMs: row.number('v'),
    receiveCount: row.integer('n'),
    firstReceiveAtMs: row.optionalNumber('f'),
    claimedAtMs: row.optionalNumber('c'),
    receiptToken: row.optionalString('t'),
  };
}

export function receiveStateOf(record: MessageRecord): ReceiveState {
  return {
    visibleAtMs: record.visibleAtMs,
    receiveCount: record.receiveCount,
    firstReceiveAtMs: record.firstReceiveAtMs,
    claimedAtMs: record.claimedAtMs,
    receiptToken: record.receiptToken,
  };
}
