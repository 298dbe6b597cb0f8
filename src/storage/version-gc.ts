/**
 * Which versions garbage collection may remove: a pure decision over physical rows in key order,
 * so it can be tested against a model and carried across bounded steps.
 *
 * For one logical key with versions newest first, given the read watermark W and the replicated
 * horizon H (H ≤ W, see mvcc-store.ts):
 * - versions newer than W stay: an open read view may still need any of them;
 * - the newest version at or below W (the "base") stays, because reads at W and above see it —
 *   unless it is a deletion marker and either a newer version exists (a read then sees the
 *   newer version or, below it, "absent" either way) or the marker is at or below H (no
 *   transaction that can still commit has a startTsUs below it, so removing it cannot hide a
 *   conflict: OCC stays exact and identical on every replica);
 * - every version older than the base goes: no read at W or above can reach it.
 * A removable marker goes only once every older version of its key has been seen and removed, in
 * its batch or an earlier one (otherwise a read would see an older value come back), so it waits
 * until a row of another key, or the end of the keyspace, shows its key complete. A step that ends
 * before that carries the marker to the next step of the pass (GcKeyState.pendingMarker): were it
 * dropped instead, a marker whose key ends exactly where steps end would stay while the keyspace
 * does not change, and every pass would find it again.
 *
 * What stays tells when it could go (GcPlan.freesAt), so that a store need not read its whole
 * keyspace again before then: a kept value older than its key's newest goes once W reaches the
 * version just newer than it (that one is then at or below W, so the kept one is older than the
 * base), a kept marker under a newer version once W reaches the marker (it is then a base marker
 * under a newer version); a key whose newest version is a kept marker loses it once H reaches the
 * marker. A key whose newest version is a value keeps it until a later write.
 */
import type { EngineEntry } from './engine.js';
import { bytesEqual } from './key-codec.js';
import { commitTsOf, isDeletionMarker, logicalKeyOf } from './version-key.js';

/** Where a collection pass is inside the current logical key, carried from one step to the next. */
export interface GcKeyState {
  readonly key: Uint8Array | undefined;
  readonly hasNewerThanWatermark: boolean;
  readonly hasBase: boolean;
  /** The current key's removable base marker, not removed yet: its key may go on in the next step. */
  readonly pendingMarker: Uint8Array | undefined;
  /** Commit timestamp of the current key's last row kept (the version just newer than the next row that stays). */
  readonly newerTsUs: number;
  /** Commit timestamp of the current key's last row read, kept or not: the version that hid the next row. */
  readonly hiderTsUs: number;
}

/**
 * When what a plan kept could go, were nothing written meanwhile (Infinity: never, until a later
 * write): `watermarkTs`, the least W at which a version hidden by a newer one goes; `horizonTs`,
 * the least H at which a key's newest version, a marker, goes; `lastMarkerTs`, the H at which every
 * such marker has gone (-Infinity: none kept).
 */
export interface GcFreesAt {
  readonly watermarkTs: number;
  readonly horizonTs: number;
  readonly lastMarkerTs: number;
}

export const neverFreed: GcFreesAt = { watermarkTs: Infinity, horizonTs: Infinity, lastMarkerTs: -Infinity };

/** What two plans kept, together (of two steps of a pass, or of two passes). */
export function bothFreesAt(a: GcFreesAt, b: GcFreesAt): GcFreesAt {
  return {
    watermarkTs: Math.min(a.watermarkTs, b.watermarkTs),
    horizonTs: Math.min(a.horizonTs, b.horizonTs),
    lastMarkerTs: Math.max(a.lastMarkerTs, b.lastMarkerTs),
  };
}

export const initialGcKeyState: GcKeyState = {
  key: undefined,
  hasNewerThanWatermark: false,
  hasBase: false,
  pendingMarker: undefined,
  newerTsUs: Infinity,
  hiderTsUs: Infinity,
};

export interface GcPlan {
  /** Physical keys to delete. */
  readonly removals: Uint8Array[];
  readonly liveVersions: number;
  readonly deadVersions: number;
  /** Deletion markers among the removals. */
  readonly deletionMarkersRemoved: number;
  /**
   * The removals that were their key's base (a marker): the only ones that may be a key's newest
   * version, since every other removal is older than a version that stays. What a cache of newest
   * versions must forget; the rest it never holds.
   */
  readonly removedBases: Uint8Array[];
  /** When what this plan kept could go, were nothing written meanwhile. */
  readonly freesAt: GcFreesAt;
  readonly state: GcKeyState;
}

export function planVersionGc(
  rows: readonly EngineEntry[],
  start: GcKeyState,
  watermarkTs: number,
  horizonTs: number,
  options: {
    readonly isEndOfKeyspace: boolean;
    /**
     * Garbage made after this commit timestamp is the garbage ledger's (garbage-ledger.ts), so the
     * pass leaves it: a value hidden by a version newer than it, a marker newer than it. Each
     * version then has one remover, and the counts of removed versions stay exact. Default:
     * Infinity (the pass takes everything).
     */
    readonly trackedAfterTs?: number;
  },
): GcPlan {
  const trackedAfterTs = options.trackedAfterTs ?? Infinity;
  const removals: Uint8Array[] = [];
  const removedBases: Uint8Array[] = [];
  let liveVersions = 0;
  let deletionMarkersRemoved = 0;
  let freesAtWatermarkTs = Infinity;
  let freesAtHorizonTs = Infinity;
  let lastMarkerTs = -Infinity;
  let { key, hasNewerThanWatermark, hasBase, newerTsUs, hiderTsUs } = start;
  /**
   * A removable marker of the current key, removed once the key is known to be complete. The
   * watermark and the horizon only grow, so a marker a step found removable stays so in the next.
   */
  let pendingMarker = start.pendingMarker;
  const removePendingMarker = () => {
    if (pendingMarker === undefined) return;
    removals.push(pendingMarker);
    removedBases.push(pendingMarker);
    deletionMarkersRemoved++;
    pendingMarker = undefined;
  };
  for (const row of rows) {
    const rowKey = logicalKeyOf(row.key);
    if (key === undefined || !bytesEqual(rowKey, key)) {
      removePendingMarker();
      key = rowKey;
      hasNewerThanWatermark = false;
      hasBase = false;
      newerTsUs = Infinity;
      hiderTsUs = Infinity;
    }
    const commitTsUs = commitTsOf(row.key);
    const isMarker = isDeletionMarker(row.value);
    // The ledger's: a marker made after trackedAfterTs, a value hidden after it.
    const isTracked = isMarker ? commitTsUs > trackedAfterTs : hiderTsUs !== Infinity && hiderTsUs > trackedAfterTs;
    hiderTsUs = commitTsUs;
    let isKept: boolean;
    if (commitTsUs > watermarkTs) {
      hasNewerThanWatermark = true;
      isKept = true;
    } else if (!hasBase) {
      hasBase = true;
      isKept = !(isMarker && (hasNewerThanWatermark || commitTsUs <= horizonTs)) || isTracked;
      if (!isKept) pendingMarker = row.key;
    } else isKept = isTracked;
    if (isKept && isTracked) {
      // Not this pass's to remove, nor to wait for: the ledger removes it.
      liveVersions++;
      newerTsUs = commitTsUs;
      continue;
    }
    if (isKept) {
      liveVersions++;
      // Kept below a newer version, a value goes once W reaches that one, a marker once W reaches
      // the marker itself (a base marker under a newer version goes); kept as its key's newest,
      // only a marker goes, once H reaches it.
      if (newerTsUs !== Infinity) freesAtWatermarkTs = Math.min(freesAtWatermarkTs, isMarker ? commitTsUs : newerTsUs);
      else if (isMarker) {
        freesAtHorizonTs = Math.min(freesAtHorizonTs, commitTsUs);
        lastMarkerTs = Math.max(lastMarkerTs, commitTsUs);
      }
    }
    if (isKept || pendingMarker === row.key) {
      newerTsUs = commitTsUs;
      continue;
    }
    if (isMarker) deletionMarkersRemoved++;
    removals.push(row.key);
  }
  if (options.isEndOfKeyspace) removePendingMarker();
  return {
    removals,
    liveVersions,
    deadVersions: removals.length,
    deletionMarkersRemoved,
    removedBases,
    freesAt: { watermarkTs: freesAtWatermarkTs, horizonTs: freesAtHorizonTs, lastMarkerTs },
    state: {
      key: key === undefined ? undefined : key.slice(),
      hasNewerThanWatermark,
      hasBase,
      pendingMarker: pendingMarker?.slice(),
      newerTsUs,
      hiderTsUs,
    },
  };
}
