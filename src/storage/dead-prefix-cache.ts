/**
 * Remembers, per scan start, a run of keys that are dead — whose newest version is a deletion
 * marker — so that the next forward scan from the same start skips them without reading them.
 *
 * Why: a queue's visibility range is scanned from its start by every receive, and its head is a
 * stream of deletions. Until the horizon lets collection remove them, every receive would read
 * every marker again (see docs/BENCHMARKS.md, Storage). With this cache it reads them once.
 *
 * A prefix [gte, end) with newestMarkerTs M means: every key in it has, as its newest version, a
 * deletion marker committed at or below M (or no version at all). A read at ts ≥ M therefore sees
 * none of them. It stays true until a put lands in [gte, end): the apply path reports every write
 * (noteWrites) and a put cuts the prefix short at its key; a delete only raises M. Collection never
 * makes a dead key live. Writes are reported once they are in the engine and before lastCommitTs
 * moves past them, and only reads at or below lastCommitTs use the cache, so no read can see a
 * version the cache does not know of.
 *
 * A scan that builds a prefix registers before it opens its iterator; writes that land while it
 * runs are applied to its pending prefix as well, so a prefix is never recorded stale.
 */
import { Buffer } from 'node:buffer';
import { compareBytes } from './key-codec.js';
import type { VersionWrite } from './applied-batch.js';

export interface DeadPrefix {
  readonly gte: Uint8Array;
  /** Logical key (or the scan's upper bound) where the dead run ends. */
  end: Uint8Array;
  newestMarkerTs: number;
}

export interface PendingDeadPrefix {
  readonly gte: Uint8Array;
  /** The smallest key ≥ gte that got a put while the scan ran. */
  firstPutKey: Uint8Array | undefined;
  newestMarkerTs: number;
}

export interface DeadPrefixCacheOptions {
  /** Prefixes kept; the oldest recorded goes first. */
  readonly prefixesMax: number;
  /** Dead keys a scan must have skipped before its prefix is worth remembering. */
  readonly deadKeysMin: number;
}

/**
 * The recorded prefixes ordered by their start, for noteWrites: a write is checked only against
 * the prefixes that start at or below it and whose run may reach it, not against all of them.
 */
interface PrefixOrder {
  readonly byStart: readonly DeadPrefix[];
  /** reachEnds[i]: the largest end among byStart[0..i] when the order was made (ends only shrink after). */
  readonly reachEnds: readonly Uint8Array[];
}

export class DeadPrefixCache {
  private readonly prefixes = new Map<string, DeadPrefix>();
  private readonly pending = new Set<PendingDeadPrefix>();
  /** The order of `prefixes`; null when a prefix was added or removed since it was made. */
  private order: PrefixOrder | null = null;

  constructor(readonly options: DeadPrefixCacheOptions) {}

  get size(): number {
    return this.prefixes.size;
  }

  /** Where a forward scan from `gte` at `ts` may start instead, if anything is known. */
  lookup(gte: Uint8Array, ts: number): DeadPrefix | undefined {
    const prefix = this.prefixes.get(idOf(gte));
    if (prefix === undefined || ts < prefix.newestMarkerTs || compareBytes(prefix.end, gte) <= 0) return undefined;
    return prefix;
  }

  beginScan(gte: Uint8Array): PendingDeadPrefix {
    const pending: PendingDeadPrefix = { gte, firstPutKey: undefined, newestMarkerTs: 0 };
    this.pending.add(pending);
    return pending;
  }

  /**
   * Ends a scan that found [pending.gte, end) dead (with markers up to newestMarkerTs) after
   * skipping `deadKeys` keys, possibly continuing a prefix it started from.
   */
  finishScan(
    pending: PendingDeadPrefix,
    found: { end: Uint8Array; newestMarkerTs: number; deadKeys: number } | undefined,
  ): void {
    this.pending.delete(pending);
    if (found === undefined || found.deadKeys < this.options.deadKeysMin) return;
    let end = found.end;
    if (pending.firstPutKey !== undefined && compareBytes(pending.firstPutKey, end) < 0) end = pending.firstPutKey;
    if (compareBytes(end, pending.gte) <= 0) return;
    const id = idOf(pending.gte);
    this.prefixes.delete(id);
    this.order = null;
    if (this.prefixes.size >= this.options.prefixesMax) {
      const oldest = this.prefixes.keys().next();
      if (oldest.done !== true) this.prefixes.delete(oldest.value);
    }
    this.prefixes.set(id, {
      gte: pending.gte.slice(),
      end: end.slice(),
      newestMarkerTs: Math.max(found.newestMarkerTs, pending.newestMarkerTs),
    });
  }

  /**
   * Called by the apply path with every version it wrote, before lastCommitTs moves past them. A
   * marker raises the newest marker of each prefix it falls in; a put cuts each such prefix short
   * at its key (or ends it, at the prefix's start). Every applied write comes here, so each is
   * checked against the few prefixes that may hold it (PrefixOrder), found by binary search.
   */
  noteWrites(versions: readonly VersionWrite[]): void {
    if (this.prefixes.size === 0 && this.pending.size === 0) return;
    for (const version of versions) {
      if (this.prefixes.size > 0) this.notePrefixesOf(version);
      for (const pending of this.pending) {
        if (compareBytes(version.key, pending.gte) < 0) continue;
        if (version.value === undefined) pending.newestMarkerTs = Math.max(pending.newestMarkerTs, version.commitTsUs);
        else if (pending.firstPutKey === undefined || compareBytes(version.key, pending.firstPutKey) < 0)
          pending.firstPutKey = version.key.slice();
      }
    }
  }

  /** Forgets everything (the engine's state was replaced). */
  clear(): void {
    this.prefixes.clear();
    this.order = null;
  }

  private notePrefixesOf(version: VersionWrite): void {
    const { byStart, reachEnds } = this.prefixOrder();
    const { key } = version;
    // From the last prefix starting at or below the key, back while an earlier one may reach it.
    for (let i = lastStartAtOrBelow(byStart, key); i >= 0 && compareBytes(key, reachEnds[i] as Uint8Array) < 0; i--) {
      const prefix = byStart[i] as DeadPrefix;
      if (compareBytes(key, prefix.end) >= 0) continue;
      if (version.value === undefined) prefix.newestMarkerTs = Math.max(prefix.newestMarkerTs, version.commitTsUs);
      else if (compareBytes(key, prefix.gte) === 0) this.forget(prefix);
      else prefix.end = key.slice();
    }
  }

  private forget(prefix: DeadPrefix): void {
    this.prefixes.delete(idOf(prefix.gte));
    // Empty: the order still holds it until it is made again, and no key falls in [gte, gte).
    prefix.end = prefix.gte;
    this.order = null;
  }

  private prefixOrder(): PrefixOrder {
    if (this.order !== null) return this.order;
    const byStart = [...this.prefixes.values()].sort((a, b) => compareBytes(a.gte, b.gte));
    const reachEnds: Uint8Array[] = [];
    for (const prefix of byStart) {
      const reach = reachEnds[reachEnds.length - 1];
      reachEnds.push(reach === undefined || compareBytes(prefix.end, reach) > 0 ? prefix.end : reach);
    }
    this.order = { byStart, reachEnds };
    return this.order;
  }
}

/** The index of the last prefix whose start is at or below `key`, or -1. */
function lastStartAtOrBelow(byStart: readonly DeadPrefix[], key: Uint8Array): number {
  let low = 0;
  let high = byStart.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareBytes((byStart[middle] as DeadPrefix).gte, key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

function idOf(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}
