import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRange } from '../../src/storage/engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import type { GcStepPlanOfStore, MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { userSpaceStart } from '../../src/storage/version-key.js';
import { occRules, openOccStore } from './occ-schedule.js';

type Op =
  | { readonly kind: 'send' } // a put of a new key, vouched new (TxnWrite.isNewKey), as a SendMessage writes
  | { readonly kind: 'overwrite'; readonly pick: number }
  | { readonly kind: 'delete'; readonly pick: number }
  | { readonly kind: 'gc'; readonly rowsMax: number }
  /** A step planned now, finished `finishAfter` ops later (what the node's scheduler does, applies between). */
  | { readonly kind: 'gc-split'; readonly rowsMax: number; readonly finishAfter: number }
  | { readonly kind: 'tick'; readonly ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'send' as const }),
  fc.record({ kind: fc.constant('overwrite' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('gc' as const), rowsMax: fc.integer({ min: 1, max: 6 }) }),
  fc.record({
    kind: fc.constant('gc-split' as const),
    rowsMax: fc.integer({ min: 1, max: 6 }),
    finishAfter: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }),
);

/** A store driven through the apply step, so the versions it counts as hiding are the real ones. */
class Driver {
  private nowMs = 1_000;
  private nextKey = 0;
  private nextTxn = 0;
  readonly liveKeys: number[] = [];
  /** The collection step in flight, planned and not yet finished: one at most. */
  private pending: { plan: GcStepPlanOfStore; opsLeft: number } | undefined;

  constructor(readonly store: MvccStore) {}

  async finishPending(): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined) await this.store.finishGarbageStep(pending.plan);
  }

  async apply(writes: TxnWrite[]): Promise<void> {
    const startTsUs = this.store.lastCommitTs;
    this.nowMs += 1;
    const txn = { txnId: `t${this.nextTxn++}`, startTsUs, nowMs: this.nowMs, readKeys: [], writes };
    const entry = { index: this.store.appliedIndex + 1, leaderStampTsUs: this.nowMs * 1000, txns: [txn] };
    const [outcome] = (await applyEntries(this.store, [entry], { rules: occRules })).outcomes[0] ?? [];
    expect(outcome?.kind).toBe('committed');
  }

  async run(op: Op): Promise<void> {
    if (this.pending !== undefined && this.pending.opsLeft-- <= 0) await this.finishPending();
    switch (op.kind) {
      case 'send': {
        const n = this.nextKey++;
        await this.apply([{ kind: 'put', key: encodeKey(['k', n]), value: Uint8Array.of(1), isNewKey: true }]);
        this.liveKeys.push(n);
        return;
      }
      case 'overwrite':
      case 'delete': {
        if (this.liveKeys.length === 0) return;
        const index = op.pick % this.liveKeys.length;
        const key = encodeKey(['k', this.liveKeys[index] as number]);
        if (op.kind === 'overwrite') await this.apply([{ kind: 'put', key, value: Uint8Array.of(2) }]);
        else {
          await this.apply([{ kind: 'delete', key }]);
          this.liveKeys.splice(index, 1);
        }
        return;
      }
      case 'gc':
        if (this.pending === undefined) await this.store.collectGarbage({ rowsMax: op.rowsMax });
        return;
      case 'gc-split':
        if (this.pending === undefined)
          this.pending = { plan: await this.store.planGarbageStep({ rowsMax: op.rowsMax }), opsLeft: op.finishAfter };
        return;
      case 'tick':
        this.nowMs += op.ms;
        // An empty transaction moves the commit time, and with it the watermark and the horizon.
        await this.apply([]);
        return;
    }
  }

  /** Steps until a pass completes; the versions that pass removed. */
  async fullPass(rowsMax: number): Promise<number> {
    const before = this.store.gcStats.versionsRemoved;
    await this.finishPending();
    while (!(await this.store.collectGarbage({ rowsMax })).isPassComplete);
    return this.store.gcStats.versionsRemoved - before;
  }
}

describe('MvccStore.hasGarbageToCollect', () => {
  it('says there is nothing to collect only when a full pass would remove nothing but markers the horizon just reached', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const driver = new Driver(await openOccStore(new MemoryEngine()));
        for (const op of ops) {
          await driver.run(op);
          if (driver.store.hasGarbageToCollect) continue;
          // Markers that are their keys' newest versions wait for the newest of them; nothing else waits.
          const { deletionMarkersRemoved } = driver.store.gcStats;
          const removed = await driver.fullPass(3);
          expect(removed).toBe(driver.store.gcStats.deletionMarkersRemoved - deletionMarkersRemoved);
          if (removed === 0) expect(driver.store.hasGarbageToCollect).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('comes to nothing to collect once writes stop and time passes, with one version per live key left', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const engine = new MemoryEngine();
        const driver = new Driver(await openOccStore(engine));
        for (const op of ops) await driver.run(op);
        await driver.finishPending();
        // Past the history window, in a few commits: the horizon moves by checkpoints, so a marker
        // may wait for a second one. Collection runs only when it says a pass would remove something.
        for (let round = 0; round < 3; round++) {
          await driver.run({ kind: 'tick', ms: 100 });
          for (let pass = 0; driver.store.hasGarbageToCollect; pass++) {
            expect(pass).toBeLessThan(3);
            await driver.fullPass(4);
          }
        }
        // What is left of user space: one value version per live key.
        const userRows = await readRange(engine, { gte: userSpaceStart }, Number.MAX_SAFE_INTEGER);
        expect(userRows.length).toBe(driver.liveKeys.length);
      }),
      { numRuns: 200 },
    );
  });

  it('waits for the horizon to reach the newest kept marker instead of reading the keyspace again', async () => {
    const driver = new Driver(await openOccStore(new MemoryEngine()));
    for (let i = 0; i < 3; i++) await driver.run({ kind: 'send' });
    await driver.run({ kind: 'delete', pick: 0 });
    const firstMarkerTs = driver.store.lastCommitTs;
    await driver.run({ kind: 'tick', ms: 30 });
    await driver.run({ kind: 'delete', pick: 0 });
    const secondMarkerTs = driver.store.lastCommitTs;
    // The pass removes the values the markers hide; the markers wait for the horizon.
    expect(await driver.fullPass(2)).toBe(2);
    expect(driver.store.hasGarbageToCollect).toBe(false);
    for (let i = 0; i < 3; i++) await driver.run({ kind: 'send' }); // new keys hide nothing
    expect(driver.store.hasGarbageToCollect).toBe(false);
    // The horizon past the first marker but not the second: both wait.
    await driver.run({ kind: 'tick', ms: 16 });
    expect(driver.store.horizonTs).toBeGreaterThanOrEqual(firstMarkerTs);
    expect(driver.store.horizonTs).toBeLessThan(secondMarkerTs);
    expect(driver.store.hasGarbageToCollect).toBe(false);
    await driver.run({ kind: 'tick', ms: 100 });
    await driver.run({ kind: 'tick', ms: 100 }); // a checkpoint past both: the horizon reaches them
    expect(driver.store.hasGarbageToCollect).toBe(true);
    expect(await driver.fullPass(2)).toBe(2);
    expect(driver.store.hasGarbageToCollect).toBe(false);
  });

  it('a node that only takes sends collects nothing after its first pass', async () => {
    const driver = new Driver(await openOccStore(new MemoryEngine()));
    expect(driver.store.hasGarbageToCollect).toBe(true); // unknown until a pass: the data may be old
    for (let i = 0; i < 5; i++) await driver.run({ kind: 'send' });
    await driver.fullPass(2);
    expect(driver.store.hasGarbageToCollect).toBe(false);
    for (let i = 0; i < 5; i++) await driver.run({ kind: 'send' });
    expect(driver.store.hasGarbageToCollect).toBe(false);
    await driver.run({ kind: 'overwrite', pick: 3 });
    expect(driver.store.hasGarbageToCollect).toBe(true);
  });
});
