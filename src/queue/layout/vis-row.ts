/**
 * The value of a message's vis row ("vis", partition, visibleAtMs, order, messageId): see
 * VisibilityState below. The key is key-layout.ts's; the queue index reads the value of every vis
 * row it hears of, so each field decodes alone.
 */
import { readFloat64BE, writeFloat64BE } from '../../base/big-endian.js';

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
  writeFloat64BE(bytes, 1, retentionStartMs);
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
  return bytes.byteLength >= 9 ? readFloat64BE(bytes, 1) : undefined;
}
