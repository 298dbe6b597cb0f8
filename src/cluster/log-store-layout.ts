/**
 * The key layout of the Raft log's database (DATA/raft) and the batch that writes it. Keys are
 * ASCII tags; entry keys add the index big-endian so they sort by index:
 *   'e' ‖ BE64(index) → Entry        'hs' → HardState       'snap' → SnapshotMeta
 *   'dummy' → Entry with empty data at the compaction point (its term answers term(firstIndex-1))
 *   'cs' → Membership: the configuration and addresses as of the last applied conf change
 *   'snapdata' → Membership as of the snapshot, sent as the snapshot's data
 *   'fmt' → the format version (1: every value sealed with a checksum, see sealed-value.ts)
 * It stands apart from level-log-store.ts because both the open (log-store-open.ts: checking and
 * cutting back the stored tail) and the store's writes must agree on it byte for byte.
 */
import { readUint64BE, writeUint64BE } from '../base/big-endian.js';
import type { Entry } from '../raft/types.js';
import type { Engine, EngineWrite } from '../storage/engine.js';
import { encodeEntry } from './raft-codec.js';
import { sealValue } from './sealed-value.js';

const utf8 = new TextEncoder();
export const hardStateKey = utf8.encode('hs');
export const snapshotKey = utf8.encode('snap');
export const snapshotDataKey = utf8.encode('snapdata');
export const dummyKey = utf8.encode('dummy');
export const confStateKey = utf8.encode('cs');
export const formatKey = utf8.encode('fmt');
export const formatVersion = 1;
const entryTag = 0x65; // 'e'

export function entryKey(index: number): Uint8Array {
  const key = new Uint8Array(9);
  key[0] = entryTag;
  writeUint64BE(key, 1, index);
  return key;
}

/** The index an entry key names (the inverse of entryKey). */
export function entryKeyIndex(key: Uint8Array): number {
  return readUint64BE(key, 1);
}

/** Just past the last entry key: entry keys are [entryKey(0), entryKeysEnd). */
export const entryKeysEnd = Uint8Array.of(entryTag + 1);

export const emptyBytes = new Uint8Array(0);

export function sealEntry(entry: Entry): Uint8Array {
  return sealValue(entryKey(entry.index), encodeEntry(entry));
}

/** A batch of puts and deletes written in one Engine.write. */
export class WriteBatch {
  readonly writes: EngineWrite[] = [];

  put(key: Uint8Array, value: Uint8Array): void {
    this.writes.push({ kind: 'put', key, value });
  }

  del(key: Uint8Array): void {
    this.writes.push({ kind: 'delete', key });
  }

  write(db: Engine, options: { sync: boolean }): Promise<void> {
    return db.write(this.writes, options);
  }
}

export async function putOne(
  db: Engine,
  key: Uint8Array,
  value: Uint8Array,
  options: { sync: boolean },
): Promise<void> {
  await db.write([{ kind: 'put', key, value }], options);
}
