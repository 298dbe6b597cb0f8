/**
 * A deterministic in-memory Engine that models what a crash keeps.
 *
 * Crash model (a power loss, the worst case, not a mere process exit):
 * - a batch written with `sync: true` is durable when its promise resolves, and so is every
 *   batch written before it (a synced write flushes the log up to and including itself, as in
 *   LevelDB, whose log is one sequential file);
 * - a batch written with `sync: false` is visible at once but durable only once a later synced
 *   batch or `flush()` happened;
 * - `crash()` throws away everything that is not durable. Because the log is sequential, a crash
 *   may keep some prefix of the unsynced batches: `crash({ unsyncedBatchesKept: n })` keeps the
 *   first n of them (never a later batch without the earlier ones, never part of a batch).
 *   The default keeps none.
 * After `crash()` the engine is open again with the surviving state, as if the process had been
 * restarted on the same disk; iterators and snapshots of the old process fail with
 * EngineClosedError.
 */
import { assert } from '../base/assert.js';
import {
  EngineClosedError,
  type Engine,
  type EngineEntry,
  type EngineIterator,
  type EngineIteratorOptions,
  type EngineSnapshot,
  type EngineWrite,
} from './engine.js';
import { compareBytes } from './key-codec.js';
import { SortedByteMap, type MapPosition } from './sorted-byte-map.js';

export class MemoryEngine implements Engine {
  private current = new SortedByteMap();
  /** A fork of `current` shared by every iterator and snapshot taken since the last write. */
  private currentFork: SortedByteMap | undefined;
  private durable = new SortedByteMap();
  /** Batches visible in `current` but not yet in `durable`, oldest first. */
  private unsyncedBatches: EngineWrite[][] = [];
  /** Bumped by crash(): handles of an earlier incarnation stop working. */
  private incarnation = 0;
  private isOpen = true;
  private syncedWriteCount = 0;
  private unsyncedWriteCount = 0;

  /** Counts of batches written, for tests that check a caller's sync policy. */
  get stats(): { readonly syncedBatches: number; readonly unsyncedBatches: number; readonly entries: number } {
    return {
      syncedBatches: this.syncedWriteCount,
      unsyncedBatches: this.unsyncedWriteCount,
      entries: this.current.size,
    };
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.checkOpen('get');
    return this.current.get(key);
  }

  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    this.checkOpen('get');
    return keys.map((key) => this.current.get(key));
  }

  iterator(options: EngineIteratorOptions): EngineIterator {
    this.checkOpen('open an iterator');
    const incarnation = this.incarnation;
    return new MemoryIterator(this.frozenCurrent(), options, () => this.isHandleValid(incarnation));
  }

  async write(writes: readonly EngineWrite[], options: { readonly sync: boolean }): Promise<void> {
    this.checkOpen('write');
    const batch = writes.map(copyWrite);
    this.currentFork = undefined;
    applyBatch(this.current, batch);
    this.unsyncedBatches.push(batch);
    if (options.sync) {
      this.syncedWriteCount++;
      this.makeUnsyncedDurable();
    } else {
      this.unsyncedWriteCount++;
    }
  }

  async flush(): Promise<void> {
    this.checkOpen('flush');
    this.makeUnsyncedDurable();
  }

  snapshot(): EngineSnapshot {
    this.checkOpen('take a snapshot');
    return new MemorySnapshot(this.frozenCurrent(), this.incarnation, (incarnation) => this.isHandleValid(incarnation));
  }

  async close(): Promise<void> {
    this.isOpen = false;
  }

  /** Simulates a power loss and restart: see the crash model at the top of this file. */
  crash(options: { readonly unsyncedBatchesKept?: number } = {}): void {
    const kept = options.unsyncedBatchesKept ?? 0;
    assert(
      Number.isInteger(kept) && kept >= 0,
      () => `unsyncedBatchesKept must be a non-negative integer, got ${kept}`,
    );
    for (const batch of this.unsyncedBatches.slice(0, kept)) applyBatch(this.durable, batch);
    this.unsyncedBatches = [];
    this.current = this.durable.fork();
    this.currentFork = undefined;
    this.incarnation++;
    this.isOpen = true;
  }

  /** How many batches a crash right now could lose. */
  get unsyncedBatchCount(): number {
    return this.unsyncedBatches.length;
  }

  private frozenCurrent(): SortedByteMap {
    this.currentFork ??= this.current.fork();
    return this.currentFork;
  }

  private makeUnsyncedDurable(): void {
    for (const batch of this.unsyncedBatches) applyBatch(this.durable, batch);
    this.unsyncedBatches = [];
  }

  private isHandleValid(incarnation: number): boolean {
    return this.isOpen && incarnation === this.incarnation;
  }

  private checkOpen(what: string): void {
    if (!this.isOpen) throw new EngineClosedError(what);
  }
}

function copyWrite(write: EngineWrite): EngineWrite {
  return write.kind === 'put'
    ? { kind: 'put', key: write.key.slice(), value: write.value.slice() }
    : { kind: 'delete', key: write.key.slice() };
}

function applyBatch(map: SortedByteMap, batch: readonly EngineWrite[]): void {
  for (const write of batch) {
    if (write.kind === 'put') map.set(write.key, write.value);
    else map.delete(write.key);
  }
}

class MemorySnapshot implements EngineSnapshot {
  private isReleased = false;

  constructor(
    private readonly map: SortedByteMap,
    private readonly incarnation: number,
    private readonly isEngineValid: (incarnation: number) => boolean,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.check('get');
    return this.map.get(key);
  }

  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    this.check('get');
    return keys.map((key) => this.map.get(key));
  }

  iterator(options: EngineIteratorOptions): EngineIterator {
    this.check('open an iterator');
    return new MemoryIterator(this.map, options, () => !this.isReleased && this.isEngineValid(this.incarnation));
  }

  async release(): Promise<void> {
    this.isReleased = true;
  }

  private check(what: string): void {
    if (this.isReleased || !this.isEngineValid(this.incarnation))
      throw new EngineClosedError(`${what} on a released or lost snapshot`);
  }
}

/** Iterates a frozen fork of the map, so later writes to the engine never show through. */
class MemoryIterator implements EngineIterator {
  private position: MapPosition | undefined;
  private isClosed = false;

  constructor(
    private readonly map: SortedByteMap,
    private readonly options: EngineIteratorOptions,
    private readonly isValid: () => boolean,
  ) {
    this.position = options.reverse
      ? this.lastAtOrBefore(options.lt, { isInclusive: false })
      : this.firstAtOrAfter(options.gte);
  }

  async next(entriesMax: number): Promise<EngineEntry[]> {
    if (this.isClosed || !this.isValid()) throw new EngineClosedError('read from a closed iterator');
    const entries: EngineEntry[] = [];
    while (entries.length < entriesMax && this.position !== undefined && !this.map.isEnd(this.position)) {
      const key = this.map.keyAt(this.position);
      if (!this.isWithinBounds(key)) {
        this.position = undefined;
        break;
      }
      entries.push({ key, value: this.map.valueAt(this.position) });
      this.position = this.options.reverse ? this.map.previous(this.position) : this.map.next(this.position);
    }
    return entries;
  }

  seek(target: Uint8Array): void {
    if (this.options.reverse) {
      const isBoundedByLt = this.options.lt !== undefined && compareBytes(this.options.lt, target) <= 0;
      this.position = isBoundedByLt
        ? this.lastAtOrBefore(this.options.lt, { isInclusive: false })
        : this.lastAtOrBefore(target, { isInclusive: true });
    } else {
      const lower =
        this.options.gte !== undefined && compareBytes(this.options.gte, target) > 0 ? this.options.gte : target;
      this.position = this.firstAtOrAfter(lower);
    }
  }

  async close(): Promise<void> {
    this.isClosed = true;
  }

  private firstAtOrAfter(key: Uint8Array | undefined): MapPosition {
    return key === undefined ? this.map.first() : this.map.lowerBound(key);
  }

  /** The last position whose key is < `key` (≤ when inclusive); the last entry when `key` is absent. */
  private lastAtOrBefore(key: Uint8Array | undefined, options: { isInclusive: boolean }): MapPosition | undefined {
    if (key === undefined) return this.map.previous({ chunk: Number.MAX_SAFE_INTEGER, index: 0 });
    const bound = this.map.lowerBound(key);
    if (options.isInclusive && !this.map.isEnd(bound) && compareBytes(this.map.keyAt(bound), key) === 0) return bound;
    return this.map.previous(bound);
  }

  private isWithinBounds(key: Uint8Array): boolean {
    if (this.options.gte !== undefined && compareBytes(key, this.options.gte) < 0) return false;
    if (this.options.lt !== undefined && compareBytes(key, this.options.lt) >= 0) return false;
    return true;
  }
}
