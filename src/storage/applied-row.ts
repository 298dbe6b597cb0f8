/**
 * The applied system row (system-keys.ts): the Raft index of the last applied entry and the commit
 * timestamp of the last committed txn, written in the same engine batch as the versions they
 * describe, so a restart resumes exactly where the last apply step ended.
 */
import { assert } from '../base/assert.js';
import { readUint64BE, writeUint64BE } from '../base/big-endian.js';

export interface AppliedPosition {
  readonly appliedIndex: number;
  readonly lastCommitTs: number;
}

/** BE64 appliedIndex ‖ BE64 lastCommitTs. */
export function encodeAppliedRow(appliedIndex: number, lastCommitTs: number): Uint8Array {
  const row = new Uint8Array(16);
  writeUint64BE(row, 0, appliedIndex);
  writeUint64BE(row, 8, lastCommitTs);
  return row;
}

export function decodeAppliedRow(row: Uint8Array): AppliedPosition {
  assert(row.length === 16, 'the applied row is 16 bytes');
  return { appliedIndex: readUint64BE(row, 0), lastCommitTs: readUint64BE(row, 8) };
}
