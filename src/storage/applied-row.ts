/**
 * The applied system row (system-keys.ts): the Raft index of the last applied entry and the commit
 * timestamp of the last committed txn, written in the same engine batch as the versions they
 * describe, so a restart resumes exactly where the last apply step ended.
 */
import { assert } from '../base/assert.js';

export interface AppliedPosition {
  readonly appliedIndex: number;
  readonly lastCommitTs: number;
}

/** BE64 appliedIndex ‖ BE64 lastCommitTs. */
export function encodeAppliedRow(appliedIndex: number, lastCommitTs: number): Uint8Array {
  const row = new Uint8Array(16);
  const view = new DataView(row.buffer);
  view.setBigUint64(0, BigInt(appliedIndex));
  view.setBigUint64(8, BigInt(lastCommitTs));
  return row;
}

export function decodeAppliedRow(row: Uint8Array): AppliedPosition {
  assert(row.length === 16, 'the applied row is 16 bytes');
  const view = new DataView(row.buffer, row.byteOffset, row.byteLength);
  return { appliedIndex: Number(view.getBigUint64(0)), lastCommitTs: Number(view.getBigUint64(8)) };
}
