/**
 * Live rows per key family, rows left in tombstoned generations, and live and dead versions of the
 * state database, maintained as entries are applied rather than by scanning: each applied change
 * of a key's liveness adds or removes one row of its family (and of its queue generation), each
 * committed write adds one version, and garbage collection's removals take versions away.
 *
 * The counts start from one scan of a frozen view when the state is opened (node start, snapshot
 * install); what is applied while that scan runs is kept apart and added when it ends, so the
 * result is exact. Until the first scan ends the census reports nothing (`isCounted` is false).
 *
 * The family of a key is the queue layer's knowledge: it comes in as a `StateKeyClassifier`.
 */
import type { EngineEntry, EngineReader } from '../storage/engine.js';
import { bytesEqual } from '../storage/key-codec.js';
import { isDeletionMarker, logicalKeyOf, userSpaceStart } from '../storage/version-key.js';
import type { AppliedStateChanges, StateObserver } from './state-observer.js';
import type { StateStore } from './state-store.js';

export interface StateKeyClass {
  readonly family: string;
  /** The queue generation the row belongs to or, for the tombstone family, the one it names. */
  readonly generationId?: string;
}

export type StateKeyClassifier = (key: Uint8Array) => StateKeyClass;

/** Additive counts: a base from a scan plus deltas from apply. */
class Counts {
  readonly rowsByFamily = new Map<string, number>();
  readonly rowsByGeneration = new Map<string, number>();
  readonly tombstones = new Map<string, number>();
  versions = 0;

  addRow(keyClass: StateKeyClass, delta: number): void {
    bump(this.rowsByFamily, keyClass.family, delta);
    if (keyClass.generationId === undefined) return;
    if (keyClass.family === 'tombstone') bump(this.tombstones, keyClass.generationId, delta);
    else bump(this.rowsByGeneration, keyClass.generationId, delta);
  }

  add(other: Counts): void {
    for (const [family, n] of other.rowsByFamily) bump(this.rowsByFamily, family, n);
    for (const [id, n] of other.rowsByGeneration) bump(this.rowsByGeneration, id, n);
    for (const [id, n] of other.tombstones) bump(this.tombstones, id, n);
    this.versions += other.versions;
  }
}

function bump(map: Map<string, number>, key: string, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

export interface StateCensusOptions {
  readonly classify: StateKeyClassifier;
  /** Called for every row that lost its value (after counting), e.g. to schedule compaction. */
  readonly onRowRemoved?: (keyClass: StateKeyClass) => void;
  readonly onScanFailed?: (error: unknown) => void;
}

export class StateCensus implements StateObserver {
  /** Counts from the last finished scan plus everything applied since it started; null until one finished. */
  private counted: Counts | null = null;
  /** Applied while a scan runs. */
  private pending: Counts | null = null;
  private state: StateStore | null = null;
  /** gcStats.versionsRemoved of `state` when its scan's view was frozen. */
  private versionsRemovedAtScan = 0;
  private scanGeneration = 0;
  /** Settles when the count started by the last onStateOpened has finished (or failed). */
  countDone: Promise<void> = Promise.resolve();

  constructor(private readonly options: StateCensusOptions) {}

  get isCounted(): boolean {
    return this.counted !== null;
  }

  onApplied(changes: AppliedStateChanges): void {
    const target = this.pending ?? this.counted;
    if (target === null) return;
    for (const change of changes.liveKeyChanges) {
      const keyClass = this.options.classify(change.key);
      target.addRow(keyClass, change.isLive ? 1 : -1);
      if (!change.isLive) this.options.onRowRemoved?.(keyClass);
    }
    target.versions += changes.versionsWritten;
  }

  onStateOpened(state: StateStore): void {
    this.state = state;
    this.counted = null;
    this.pending = new Counts();
    this.versionsRemovedAtScan = state.mvcc.gcStats.versionsRemoved;
    const scan = ++this.scanGeneration;
    const reader = state.engine.snapshot();
    this.countDone = countRows(reader, this.options.classify)
      .then((base) => {
        if (scan !== this.scanGeneration || this.pending === null) return;
        base.add(this.pending);
        this.counted = base;
        this.pending = null;
      })
      .catch((error: unknown) => this.options.onScanFailed?.(error))
      .finally(() => void reader.release().catch(() => undefined));
  }

  /** Live rows per family; undefined until the first count finished. */
  rowsByFamily(): ReadonlyMap<string, number> | undefined {
    return this.counted?.rowsByFamily;
  }

  /** Rows still present in generations that have a tombstone (purged or deleted, not yet reaped). */
  tombstonedRows(): number | undefined {
    const counted = this.counted;
    if (counted === null) return undefined;
    let rows = 0;
    for (const id of counted.tombstones.keys()) rows += counted.rowsByGeneration.get(id) ?? 0;
    return rows;
  }

  /** Live versions (the value of each live key) and dead ones (older versions and deletion markers not yet collected). */
  versions(): { live: number; dead: number } | undefined {
    const counted = this.counted;
    const state = this.state;
    if (counted === null || state === null) return undefined;
    let live = 0;
    for (const n of counted.rowsByFamily.values()) live += n;
    const total = counted.versions - (state.mvcc.gcStats.versionsRemoved - this.versionsRemovedAtScan);
    return { live, dead: Math.max(0, total - live) };
  }
}

/** One pass over a frozen view: every version counts, and the newest version of each key if it is a value. */
async function countRows(reader: EngineReader, classify: StateKeyClassifier): Promise<Counts> {
  const counts = new Counts();
  const iterator = reader.iterator({ gte: userSpaceStart });
  let lastKey: Uint8Array | null = null;
  try {
    for (;;) {
      const page: EngineEntry[] = await iterator.next(1024);
      if (page.length === 0) break;
      for (const row of page) {
        counts.versions++;
        const logical = logicalKeyOf(row.key);
        // Versions of one key come newest first: only the first says whether the key is live.
        if (lastKey !== null && bytesEqual(logical, lastKey)) continue;
        lastKey = logical;
        if (!isDeletionMarker(row.value)) counts.addRow(classify(logical), 1);
      }
    }
  } finally {
    await iterator.close();
  }
  return counts;
}
