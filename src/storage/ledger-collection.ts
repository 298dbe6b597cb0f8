/**
 * A collection step from the garbage ledger (garbage-ledger.ts): the due entries become the exact
 * physical keys to remove. A hidden version with a known timestamp and a marker need no read; a
 * hidden version the apply step did not look up (unknownTs) costs one seek among its key's
 * versions, all through one iterator per step, in key order.
 */
import type { Engine } from './engine.js';
import { compareBytes } from './key-codec.js';
import { unknownTs, type GarbageLedger, type HiddenVersion, type LedgerTake } from './garbage-ledger.js';
import { bytesEqual } from './key-codec.js';
import { encodeVersionKey, isDeletionMarker, logicalKeyOf, versionsEnd, versionsStart } from './version-key.js';

export interface LedgerStepPlan {
  readonly take: LedgerTake;
  /** Physical keys to delete: hidden versions, then markers. */
  readonly removals: Uint8Array[];
  /** The markers among them: the only removals that may be their key's newest version. */
  readonly removedBases: Uint8Array[];
  readonly hiddenVersionsRemoved: number;
  readonly bytesRead: number;
  readonly watermarkTs: number;
  readonly horizonTs: number;
}

export async function planLedgerStep(
  engine: Engine,
  ledger: GarbageLedger,
  bounds: { readonly watermarkTs: number; readonly horizonTs: number; readonly entriesMax: number },
): Promise<LedgerStepPlan> {
  const { watermarkTs, horizonTs } = bounds;
  const take = ledger.takeDue(watermarkTs, horizonTs, bounds.entriesMax);
  const removals: Uint8Array[] = [];
  const unknown: HiddenVersion[] = [];
  for (const hidden of take.hidden) {
    if (hidden.hiddenTs === unknownTs) unknown.push(hidden);
    else removals.push(encodeVersionKey(hidden.key, hidden.hiddenTs));
  }
  let bytesRead = 0;
  if (unknown.length > 0) {
    const found = await versionsOlderThanHiding(engine, unknown);
    removals.push(...found.keys);
    bytesRead = found.bytesRead;
  }
  const hiddenVersionsRemoved = removals.length;
  const removedBases = take.markers.map((marker) => encodeVersionKey(marker.key, marker.ts));
  removals.push(...removedBases);
  return { take, removals, removedBases, hiddenVersionsRemoved, bytesRead, watermarkTs, horizonTs };
}

/** Iterators that look up the versions vouched deletes hid, concurrently, each over a run of the keys in order. */
const lookupIteratorsMax = 8;

/**
 * The physical key of the newest version of each entry's key older than its hidingTs: the value the
 * entry's delete hid (the vouch says it was a value). Versions older than that one were hidden by
 * it, or before it, and have entries of their own (or were a pass's). The entries, in key order,
 * are split over a few iterators that seek concurrently: each seek is a round trip to the engine.
 */
async function versionsOlderThanHiding(
  engine: Engine,
  entries: HiddenVersion[],
): Promise<{ keys: Uint8Array[]; bytesRead: number }> {
  entries.sort((a, b) => compareBytes(a.key, b.key) || a.hidingTs - b.hidingTs);
  const runLength = Math.ceil(entries.length / lookupIteratorsMax);
  const runs: HiddenVersion[][] = [];
  for (let at = 0; at < entries.length; at += runLength) runs.push(entries.slice(at, at + runLength));
  const found = await Promise.all(runs.map((run) => hiddenValuesOfRun(engine, run)));
  return {
    keys: found.flatMap((run) => run.keys),
    bytesRead: found.reduce((sum, run) => sum + run.bytesRead, 0),
  };
}

async function hiddenValuesOfRun(
  engine: Engine,
  run: readonly HiddenVersion[],
): Promise<{ keys: Uint8Array[]; bytesRead: number }> {
  const first = run[0] as HiddenVersion;
  const last = run[run.length - 1] as HiddenVersion;
  const iterator = engine.iterator({ gte: versionsStart(first.key), lt: versionsEnd(last.key) });
  const keys: Uint8Array[] = [];
  let bytesRead = 0;
  try {
    for (const entry of run) {
      // Versions sort newest first: the first one older than hidingTs is at or after (key, hidingTs - 1).
      iterator.seek(encodeVersionKey(entry.key, entry.hidingTs - 1));
      const [row] = await iterator.next(1);
      if (row === undefined) continue;
      bytesRead += row.key.length + row.value.length;
      if (bytesEqual(logicalKeyOf(row.key), entry.key) && !isDeletionMarker(row.value)) keys.push(row.key);
    }
  } finally {
    await iterator.close();
  }
  return { keys, bytesRead };
}
