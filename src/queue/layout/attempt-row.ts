/**
 * The receive-attempt row of a FIFO queue ("attempt", receiveRequestAttemptId): the messages one
 * ReceiveMessage claimed, so that a retry with the same ReceiveRequestAttemptId within the window
 * gets them again. Stored as JSON (one per FIFO receive that names an attempt id); read through
 * StoredJsonRow, which checks every field.
 */
import { StoredJsonRow } from './stored-json-row.js';

export interface AttemptClaim {
  readonly partition: number;
  readonly messageId: string;
  /** The receipt token of the claim: the message is the attempt's only while it still carries it. */
  readonly token: string;
}

export interface AttemptRow {
  /** When the attempt's window ends (the reaper removes the row after it). */
  readonly expiresAtMs: number;
  readonly claims: readonly AttemptClaim[];
}

const encoder = new TextEncoder();

export function encodeAttemptRow(row: AttemptRow): Uint8Array {
  return encoder.encode(
    JSON.stringify({
      expiresAtMs: row.expiresAtMs,
      claims: row.claims.map(({ partition, messageId, token }) => ({ partition, messageId, token })),
    }),
  );
}

export function decodeAttemptRow(bytes: Uint8Array): AttemptRow {
  const row = StoredJsonRow.parse(bytes, 'receive attempt');
  return {
    expiresAtMs: row.number('expiresAtMs'),
    claims: row.objects('claims').map((claim) => ({
      partition: claim.integer('partition'),
      messageId: claim.string('messageId'),
      token: claim.string('token'),
    })),
  };
}
