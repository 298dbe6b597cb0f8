/**
 * Read views of the MVCC store: a view reads at one commit timestamp until released, and while it
 * is open it holds the store's read watermark back (mvcc-store.ts), so garbage collection keeps
 * every version it can see.
 */
import { assert } from '../base/assert.js';
import type { KeyRange, KeyValue, ReadView } from './txn.js';

/** What a view reads through: the store's snapshot reads. */
export interface VersionReader {
  getAt(key: Uint8Array, ts: number): Promise<Uint8Array | undefined>;
  getManyAt(keys: readonly Uint8Array[], ts: number): Promise<Array<Uint8Array | undefined>>;
  scanAt(range: KeyRange, ts: number, options: { limit: number; reverse?: boolean }): Promise<KeyValue[]>;
}

/** The timestamps of the open views, with a count each (many views may share one timestamp). */
export class OpenReadViews {
  /** ts → count. */
  private readonly views = new Map<number, number>();

  register(ts: number): void {
    this.views.set(ts, (this.views.get(ts) ?? 0) + 1);
  }

  unregister(ts: number): void {
    const count = this.views.get(ts);
    assert(count !== undefined && count > 0, () => `no open view at ts ${ts}`);
    if (count === 1) this.views.delete(ts);
    else this.views.set(ts, count - 1);
  }

  get count(): number {
    let total = 0;
    for (const count of this.views.values()) total += count;
    return total;
  }

  oldestTs(): number | undefined {
    let oldest: number | undefined;
    for (const ts of this.views.keys()) if (oldest === undefined || ts < oldest) oldest = ts;
    return oldest;
  }
}

export class MvccReadView implements ReadView {
  private isReleased = false;

  constructor(
    private readonly reader: VersionReader,
    private readonly openViews: OpenReadViews,
    readonly ts: number,
  ) {
    openViews.register(ts);
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    assert(!this.isReleased, 'read from a released view');
    return this.reader.getAt(key, this.ts);
  }

  getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    assert(!this.isReleased, 'read from a released view');
    return this.reader.getManyAt(keys, this.ts);
  }

  scan(range: KeyRange, options: { limit: number; reverse?: boolean }): Promise<KeyValue[]> {
    assert(!this.isReleased, 'scan of a released view');
    return this.reader.scanAt(range, this.ts, options);
  }

  /** Idempotent: releasing twice (e.g. in nested finally blocks) is harmless. */
  release(): void {
    if (this.isReleased) return;
    this.isReleased = true;
    this.openViews.unregister(this.ts);
  }
}
