/**
 * The deduplication row of a FIFO queue ("dedup", partition, scope, deduplicationId): what the
 * first send of a deduplication id answered, kept for the deduplication window so that a repeat
 * answers the same. Stored as JSON (few, small, written once per FIFO send); read through
 * StoredJsonRow, which checks every field.
 */
import { StoredJsonRow } from './stored-json-row.js';

export interface DedupRow {
  readonly messageId: string;
  readonly sequenceNumber: string;
  /** When the deduplication window of the first send ends (the reaper removes the row after it). */
  readonly expiresAtMs: number;
}

const encoder = new TextEncoder();

export function encodeDedupRow(row: DedupRow): Uint8Array {
  return encoder.encode(
    JSON.stringify({ messageId: row.messageId, sequenceNumber: row.sequenceNumber, expiresAtMs: row.expiresAtMs }),
  );
}

export function decodeDedupRow(bytes: Uint8Array): DedupRow {
  const row = StoredJsonRow.parse(bytes, 'deduplication');
  return {
    messageId: row.string('messageId'),
    sequenceNumber: row.string('sequenceNumber'),
    expiresAtMs: row.number('expiresAtMs'),
  };
}
