/**
 * What one apply step writes to the multi-version keyspace (mvcc-store.ts): the batch the apply
 * path builds (versions, system writes, applied index, lastCommitTs, horizon) and its translation
 * into engine writes. It stands apart from the store's reads because it is the only way anything
 * enters the keyspace, and its checks are what keep the applied index and commit timestamps
 * monotonic on every replica.
 */
import { assert } from '../base/assert.js';
import { encodeAppliedRow } from './applied-row.js';
import type { EngineWrite } from './engine.js';
import type { GarbageNotes } from './garbage-ledger.js';
import type { HorizonTracker } from './horizon.js';
import { bytesEqual, isWellFormedKey } from './key-codec.js';
import { appliedRowKey, formatRowKey, horizonRowKey, systemRowMarker } from './system-keys.js';
import { encodeVersionKey, encodeVersionValue } from './version-key.js';

export interface VersionWrite {
  readonly key: Uint8Array;
  readonly commitTsUs: number;
  /** undefined writes a deletion marker. */
  readonly value: Uint8Array | undefined;
}

/** Everything one apply step changes, written as one engine batch. */
export interface AppliedBatch {
  readonly versions: readonly VersionWrite[];
  /** Writes to system rows (keys from system-keys.ts) other than the applied row. */
  readonly systemWrites: readonly EngineWrite[];
  readonly appliedIndex: number;
  readonly lastCommitTs: number;
  /** The horizon after this batch (the apply step advances it with every commit). */
  readonly horizon: HorizonTracker;
  /** Keys known to have no version before this batch (MvccStoreOptions.impliedNewKeys); nothing is written for them. */
  readonly absentKeys?: readonly Uint8Array[];
  /**
   * Versions of this batch that give garbage collection work: deletion markers, and values of keys
   * that had a version. Absent: unknown, every version counts.
   */
  readonly hidingWrites?: number;
  /**
   * Every version this batch hides and every marker it writes (garbage-ledger.ts), for collection
   * without a pass. Absent: unknown, so the store's ledger is no longer complete.
   */
  readonly garbage?: GarbageNotes;
}

/**
 * The engine writes of one apply step: its versions, its system writes and the applied row (and
 * the horizon row when it moved), after checking the batch against the store's state before it
 * (`current`): the applied index grows, lastCommitTs never goes back, every version falls after it.
 */
export function engineWritesOf(
  batch: AppliedBatch,
  current: { readonly appliedIndex: number; readonly lastCommitTs: number; readonly horizon: HorizonTracker },
): EngineWrite[] {
  assert(
    batch.appliedIndex > current.appliedIndex,
    () => `applied index must grow: ${batch.appliedIndex} after ${current.appliedIndex}`,
  );
  assert(
    batch.lastCommitTs >= current.lastCommitTs,
    () => `lastCommitTs must not go back: ${batch.lastCommitTs} after ${current.lastCommitTs}`,
  );
  const writes: EngineWrite[] = [];
  for (const version of batch.versions) {
    assert(version.key.length > 0 && isWellFormedKey(version.key), 'a version key must be a non-empty encoded tuple');
    assert(
      version.commitTsUs > current.lastCommitTs && version.commitTsUs <= batch.lastCommitTs,
      () => `version commitTsUs ${version.commitTsUs} outside (${current.lastCommitTs}, ${batch.lastCommitTs}]`,
    );
    writes.push({
      kind: 'put',
      key: encodeVersionKey(version.key, version.commitTsUs),
      value: encodeVersionValue(version.value),
    });
  }
  for (const write of batch.systemWrites) {
    assert(
      write.key[0] === systemRowMarker && !isStoreOwnedRow(write.key),
      'system writes go to system rows other than format, applied and horizon',
    );
    writes.push(write);
  }
  writes.push({ kind: 'put', key: appliedRowKey, value: encodeAppliedRow(batch.appliedIndex, batch.lastCommitTs) });
  if (batch.horizon !== current.horizon)
    writes.push({ kind: 'put', key: horizonRowKey, value: batch.horizon.encode() });
  return writes;
}

function isStoreOwnedRow(key: Uint8Array): boolean {
  return bytesEqual(key, appliedRowKey) || bytesEqual(key, formatRowKey) || bytesEqual(key, horizonRowKey);
}
