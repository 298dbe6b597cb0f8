/**
 * The reserved system rows of the state keyspace: state that describes the applied state itself,
 * kept in the same engine (and written in the same batch as the versions it describes), so that a
 * restart or a snapshot carries both or neither.
 *
 * A system row's physical key is 0x00 ‖ encodeKey(tuple). No user key can start with 0x00 (every
 * tuple element starts with a tag ≥ 0x01), so system rows sort before all user data, are never
 * versioned, and no transaction can write them. Layout:
 *
 *   ("format")                       → u8 format version of this layout
 *   ("applied")                      → BE64 applied Raft index ‖ BE64 lastCommitTs
 *   ("horizon")                      → the checkpoints of the replicated horizon (horizon.ts)
 *   ("txn", txnId)                   → the recorded outcome of a txn id (txn-id-table.ts)
 *   ("txn-expiry", recordedAtMs, txnId) → empty; orders txn ids by when they expire
 */
import { slabArray } from './byte-slab.js';
import { encodeKey, prefixRange, type KeyTuple } from './key-codec.js';
import type { KeyRange } from './txn.js';

/** The first byte of every system row's key: never the first byte of an encoded tuple. */
export const systemRowMarker = 0x00;

export const stateFormatVersion = 1;

export function systemKey(tuple: KeyTuple): Uint8Array {
  const logical = encodeKey(tuple);
  const key = slabArray(logical.length + 1);
  key[0] = systemRowMarker;
  key.set(logical, 1);
  return key;
}

export function systemPrefixRange(prefix: KeyTuple): KeyRange {
  const logical = prefixRange(prefix);
  return { gte: withMarker(logical.gte), lt: withMarker(logical.lt) };
}

/** Every system row: [0x00, 0x01). */
export const allSystemRows: KeyRange = { gte: Uint8Array.of(systemRowMarker), lt: Uint8Array.of(systemRowMarker + 1) };

function withMarker(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out[0] = systemRowMarker;
  out.set(bytes, 1);
  return out;
}

export const formatRowKey = systemKey(['format']);
export const appliedRowKey = systemKey(['applied']);
export const horizonRowKey = systemKey(['horizon']);

export function txnRowKey(txnId: string): Uint8Array {
  return systemKey(['txn', txnId]);
}

export function txnExpiryRowKey(recordedAtMs: number, txnId: string): Uint8Array {
  return systemKey(['txn-expiry', recordedAtMs, txnId]);
}

export const txnExpiryRows: KeyRange = systemPrefixRange(['txn-expiry']);
