/**
 * The table of recent txn ids: the first outcome of every txn id applied in the last
 * txnIdRetentionMs of entry time, so that a retry (after a timeout or a leader change) is answered
 * with that outcome and never applied twice.
 *
 * It lives in system rows of the replicated keyspace (system-keys.ts): it is written in the same
 * batch as the versions the txn produced, survives restarts, travels in snapshots, and is expired
 * by entry time only, so every replica holds the same table at the same index.
 *
 * Rows: ("txn", id) → record; ("txn-expiry", recordedAtMs, id) → empty, the expiry order.
 * Record: varint recordedAtMs · u8 kind · kind's field
 *   committed: varint commitTsUs · conflict: varint keyBytes, key
 *   clock-skew: zigzag varint skewMs · too-old: varint watermarkTs
 */
import { assert, assertNever } from '../base/assert.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { decodeKey } from './key-codec.js';
import type { TxnOutcome } from './txn.js';

export interface TxnIdRecord {
  /** Entry time (ms) of the entry that first applied the txn id. */
  readonly recordedAtMs: number;
  readonly outcome: TxnOutcome;
}

const kindCommitted = 0;
const kindConflict = 1;
const kindClockSkew = 2;
const kindTooOld = 3;

export function encodeTxnIdRecord(record: TxnIdRecord): Uint8Array {
  const writer = new ByteWriter(24);
  writer.varint(record.recordedAtMs);
  const outcome = record.outcome;
  switch (outcome.kind) {
    case 'committed':
      writer.byte(kindCommitted);
      writer.varint(outcome.commitTsUs);
      break;
    case 'conflict':
      writer.byte(kindConflict);
      writer.varint(outcome.key.length);
      writer.bytes(outcome.key);
      break;
    case 'clock-skew':
      writer.byte(kindClockSkew);
      writer.varint(outcome.skewMs >= 0 ? outcome.skewMs * 2 : -outcome.skewMs * 2 - 1);
      break;
    case 'too-old':
      writer.byte(kindTooOld);
      writer.varint(outcome.watermarkTs);
      break;
    default:
      assertNever(outcome, 'unknown txn outcome');
  }
  return writer.finish();
}

export function decodeTxnIdRecord(bytes: Uint8Array): TxnIdRecord {
  const reader = new ByteReader(bytes);
  const recordedAtMs = reader.varint();
  const kind = reader.byte();
  let outcome: TxnOutcome;
  if (kind === kindCommitted) outcome = { kind: 'committed', commitTsUs: reader.varint() };
  else if (kind === kindConflict) outcome = { kind: 'conflict', key: reader.bytes(reader.varint()).slice() };
  else if (kind === kindClockSkew) {
    const zigzag = reader.varint();
    outcome = { kind: 'clock-skew', skewMs: zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2 };
  } else if (kind === kindTooOld) outcome = { kind: 'too-old', watermarkTs: reader.varint() };
  else throw new Error(`unknown txn outcome kind ${kind} in the txn id table`);
  assert(reader.isAtEnd, 'a txn id record has trailing bytes');
  return { recordedAtMs, outcome };
}

/** A record is forgotten once its entry time is more than the retention behind the current entry's. */
export function isTxnIdExpired(recordedAtMs: number, entryTimeMs: number, retentionMs: number): boolean {
  return recordedAtMs + retentionMs < entryTimeMs;
}

/** (recordedAtMs, txnId) of a ("txn-expiry", recordedAtMs, txnId) system row key. */
export function decodeTxnExpiryRowKey(key: Uint8Array): { recordedAtMs: number; txnId: string } {
  const [family, recordedAtMs, txnId] = decodeKey(key.subarray(1));
  assert(
    family === 'txn-expiry' && typeof recordedAtMs === 'number' && typeof txnId === 'string',
    'not a txn expiry row',
  );
  return { recordedAtMs, txnId };
}
