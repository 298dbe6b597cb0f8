/**
 * Opening the Raft log's database: reading the format, hard state, snapshot and membership
 * records, checking every entry after the compaction point (checksum, index, terms never
 * decreasing) and cutting the log back to what can be trusted (the plan is log-tail-repair.ts).
 * It stands apart from level-log-store.ts, which serves the core from the loaded state, because
 * it runs once at start and is where damage is judged; the reasoning is in
 * docs/architecture/cluster.md.
 */
import { EntryType, type Entry, type HardState, type SnapshotMeta } from '../raft/types.js';
import { readRange, type Engine } from '../storage/engine.js';
import { decodeEntry, decodeHardState, decodeSnapshotMeta, encodeHardState } from './raft-codec.js';
import { RaftLogDamagedError } from './errors.js';
import type { WalDamage } from './level-wal-inspection.js';
import { planTailRepair, type EntryDamageReason, type EntryScan, type LogTailRepair } from './log-tail-repair.js';
import {
  confStateKey,
  dummyKey,
  emptyBytes,
  entryKey,
  entryKeyIndex,
  entryKeysEnd,
  formatKey,
  formatVersion,
  hardStateKey,
  putOne,
  snapshotDataKey,
  snapshotKey,
  WriteBatch,
} from './log-store-layout.js';
import { decodeMembership, encodeMembership, type Membership } from './membership-record.js';
import { sealValue, unsealValue } from './sealed-value.js';

/** What an open found in the database, after cutting back a damaged tail. */
export interface LoadedLog {
  readonly hardState: HardState;
  readonly membership: Membership;
  readonly snapshotMeta: SnapshotMeta;
  readonly snapshotData: Uint8Array;
  /** log[0] is the dummy at the compaction point. */
  readonly log: Entry[];
  /** What was found wrong with the tail and how it was cut back (null: nothing). */
  readonly tailRepair: LogTailRepair | null;
}

function decodeSealedHardState(sealed: Uint8Array | null): HardState | null {
  const payload = sealed === null ? null : unsealValue(hardStateKey, sealed);
  if (payload === null) return null;
  try {
    return decodeHardState(payload);
  } catch {
    return null;
  }
}

/** Reads entries after the compaction point in order, stopping at the first that fails a check. */
async function scanEntries(db: Engine, dummy: Entry): Promise<EntryScan> {
  const entries: Entry[] = [dummy];
  let maxTermSeen = dummy.term;
  let firstDamage: { index: number; reason: EntryDamageReason } | null = null;
  const rows = await readRange(db, { gte: entryKey(dummy.index + 1), lt: entryKeysEnd }, Number.MAX_SAFE_INTEGER);
  for (const { key, value: sealed } of rows) {
    const expected = dummy.index + entries.length;
    const payload = unsealValue(key, sealed);
    let entry: Entry | null = null;
    try {
      entry = payload === null ? null : decodeEntry(payload);
    } catch {
      entry = null;
    }
    if (entry !== null) maxTermSeen = Math.max(maxTermSeen, entry.term);
    if (firstDamage !== null) continue;
    const keyIndex = entryKeyIndex(key);
    const previous = entries[entries.length - 1] as Entry;
    if (keyIndex !== expected) firstDamage = { index: expected, reason: 'missing' };
    else if (payload === null) firstDamage = { index: expected, reason: 'checksum' };
    else if (entry === null) firstDamage = { index: expected, reason: 'undecodable' };
    else if (entry.index !== expected) firstDamage = { index: expected, reason: 'wrong-index' };
    else if (entry.term < previous.term) firstDamage = { index: expected, reason: 'term-decreases' };
    else entries.push(entry);
  }
  return { entries, firstDamage, maxTermSeen };
}

/**
 * Loads the log stored in `db`, creating its records if it is new (with `bootstrap` as the
 * configuration), and cuts a damaged tail back durably. Throws RaftLogDamagedError for damage a
 * tail repair cannot mend; `path` only names the log in errors.
 */
export async function loadLog(
  db: Engine,
  path: string,
  bootstrap: Membership,
  walDamage: WalDamage | null,
  hardStateBeforeDamage: Uint8Array | null,
): Promise<LoadedLog> {
  const read = async <T>(key: Uint8Array, what: string, decode: (bytes: Uint8Array) => T): Promise<T | undefined> => {
    const sealed = await db.get(key);
    if (sealed === undefined) return undefined;
    const payload = unsealValue(key, sealed);
    if (payload === null) throw new RaftLogDamagedError(path, `the ${what} fails its checksum`);
    try {
      return decode(payload);
    } catch (cause) {
      throw new RaftLogDamagedError(path, `the ${what} cannot be decoded`, { cause });
    }
  };
  const format = await db.get(formatKey);
  const isNew = format === undefined;
  if (isNew) {
    const isEmpty = (await readRange(db, {}, 1)).length === 0;
    if (!isEmpty)
      throw new RaftLogDamagedError(path, 'it has no format record (written by an older version, or damaged)');
    await putOne(db, formatKey, Uint8Array.of(formatVersion), { sync: true });
  } else if (format.length !== 1 || format[0] !== formatVersion) {
    throw new RaftLogDamagedError(path, `its format record is ${Array.from(format).join(',')}, not ${formatVersion}`);
  }
  const storedHardState = await read(hardStateKey, 'hard state', decodeHardState);
  const snapshotMetaStored = await read(snapshotKey, 'snapshot record', decodeSnapshotMeta);
  const dummyStored = await read(dummyKey, 'compaction point entry', decodeEntry);
  const snapshotData = (await read(snapshotDataKey, 'snapshot membership', (bytes) => bytes.slice())) ?? emptyBytes;
  const confStateStored = await read(confStateKey, 'membership record', decodeMembership);
  const membership: Membership = confStateStored ?? bootstrap;
  const snapshotMeta: SnapshotMeta = snapshotMetaStored ?? { index: 0, term: 0, confState: membership.confState };
  const dummy: Entry = dummyStored ?? { index: 0, term: 0, type: EntryType.Normal, data: emptyBytes };
  if (confStateStored === undefined)
    await putOne(db, confStateKey, sealValue(confStateKey, encodeMembership(membership)), { sync: true });
  const scan = await scanEntries(db, dummy);
  const repair = planTailRepair({
    dummy,
    scan,
    walDamage,
    hardStateBeforeDamage: decodeSealedHardState(hardStateBeforeDamage),
    storedHardState,
  });
  const log = scan.entries.slice(0, repair.keptLastIndex - dummy.index + 1);
  const hardState = repair.hardState;
  if (repair.isCut || hardState !== storedHardState) {
    const batch = new WriteBatch();
    if (hardState !== undefined) batch.put(hardStateKey, sealValue(hardStateKey, encodeHardState(hardState)));
    for (const { key } of await readRange(
      db,
      { gte: entryKey(repair.keptLastIndex + 1), lt: entryKeysEnd },
      Number.MAX_SAFE_INTEGER,
    ))
      batch.del(key);
    await batch.write(db, { sync: true });
  }
  return {
    hardState: hardState ?? { term: 0, vote: '', commit: 0 },
    membership,
    snapshotMeta,
    snapshotData,
    log,
    tailRepair: repair.report,
  };
}
