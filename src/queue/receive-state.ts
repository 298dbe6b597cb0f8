/**
 * The part of a message that receives change: when it is visible, how often it was received and
 * by which receive it is held now. A send stores the initial state inside the data row (no state
 * row: one row fewer per send); the first receive writes a state row of its own, which from then
 * on overrides what the data row says. A receive or a visibility change thus rewrites these few
 * fields, never the body and attributes (which may be a MiB) that the data row holds.
 *
 * Stored as JSON with one-letter names: a state row is about 100 bytes, most of it the token.
 */
import { assert } from '../base/assert.js';
import type { MessageRecord } from './message-record.js';

export interface ReceiveState {
  /** With the record's partition, order and messageId, names the message's vis row exactly. */
  readonly visibleAtMs: number;
  readonly receiveCount: number;
  readonly firstReceiveAtMs?: number;
  /** When the current receive claimed it: ChangeMessageVisibility's 12-hour cap counts from here. */
  readonly claimedAtMs?: number;
  /** The token of the current receive; a receipt handle with another token is stale. */
  readonly receiptToken?: string;
}

interface StoredReceiveState {
  v: number;
  n: number;
  f?: number;
  c?: number;
  t?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeReceiveState(state: ReceiveState): Uint8Array {
  const stored: StoredReceiveState = { v: state.visibleAtMs, n: state.receiveCount };
  if (state.firstReceiveAtMs !== undefined) stored.f = state.firstReceiveAtMs;
  if (state.claimedAtMs !== undefined) stored.c = state.claimedAtMs;
  if (state.receiptToken !== undefined) stored.t = state.receiptToken;
  return encoder.encode(JSON.stringify(stored));
}

export function decodeReceiveState(bytes: Uint8Array): ReceiveState {
  const stored = JSON.parse(decoder.decode(bytes)) as StoredReceiveState;
  assert(typeof stored.v === 'number' && typeof stored.n === 'number', 'corrupt receive-state row');
  return {
    visibleAtMs: stored.v,
    receiveCount: stored.n,
    ...(stored.f !== undefined ? { firstReceiveAtMs: stored.f } : {}),
    ...(stored.c !== undefined ? { claimedAtMs: stored.c } : {}),
    ...(stored.t !== undefined ? { receiptToken: stored.t } : {}),
  };
}

export function receiveStateOf(record: MessageRecord): ReceiveState {
  return {
    visibleAtMs: record.visibleAtMs,
    receiveCount: record.receiveCount,
    ...(record.firstReceiveAtMs !== undefined ? { firstReceiveAtMs: record.firstReceiveAtMs } : {}),
    ...(record.claimedAtMs !== undefined ? { claimedAtMs: record.claimedAtMs } : {}),
    ...(record.receiptToken !== undefined ? { receiptToken: record.receiptToken } : {}),
  };
}

/** The record as the state row says it is now: every receive field comes from `state`, none from the data row. */
export function withReceiveState(record: MessageRecord, state: ReceiveState): MessageRecord {
  const { firstReceiveAtMs: _first, claimedAtMs: _claimed, receiptToken: _token, ...immutable } = record;
  return { ...immutable, ...state };
}
