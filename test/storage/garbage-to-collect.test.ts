import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRange, type Engine } from '../../src/storage/engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import type { GcStepPlanOfStore, MvccStore, MvccStoreOptions } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { userSpaceStart } from '../../src/storage/version-key.js';
import { occRules, openOccStore } from './occ-schedule.js';

type Op =
  | { readonly kind: 'send' } // a put of a new key, vouched new (TxnWrite.isNewKey), as a SendMessage writes
  | { readonly kind: 'overwrite'; readonly pick: number }
  | { readonly kind: 'delete'; readonly pick: number }
  /** A delete vouched live (TxnWrite.isLiveKey), as a DeleteMessage removes a message's vis row: not looked up. */
  | { readonly kind: 'delete-vouched'; readonly pick: number }
  /** A put of a key that was deleted: a value over a marker. */
  | { readonly kind: 'revive'; readonly pick: number }
  | { readonly kind: 'gc'; readonly rowsMax: number }
  /** A step planned now, finished `finishAfter` ops later (what the node's scheduler does, applies between). */
  | { readonly kind: 'gc-split'; readonly rowsMax: number; readonly finishAfter: number }
  | { readonly kind: 'tick'; readonly ms: number }
  /** The node restarts: a store opened anew on the same engine knows nothing of the garbage in it. */
  | { readonly kind: 'reopen' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'send' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('overwrite' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete-vouched' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revive' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('gc' as const), rowsMax: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('gc-split' as const),
      rowsMax: fc.integer({ min: 1, max: 6 }),
      finishAfter: fc.integer({ min: 0, max: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

/**
 * How the store collects: with the garbage ledger (default), with a newest-version cache too small
 * to know what a vouched delete hides (the ledger reads it), with a ledger that takes nothing
 * (every step a pass over the keyspace), and with one so small that it starts over now and then
 * (passes and the ledger take turns).
 */
const configurations: ReadonlyArray<readonly [string, Omit<MvccStoreOptions, 'historyMs'>]> = [
  ['the garbage ledger', {}],
  [
    'the ledger, reading what a vouched delete hid',
    { newestVersionCache: { entriesMax: 1, bytesMax: 200, valueBytesMax: 8 } },
  ],
  ['passes only (a ledger that takes nothing)', { garbageLedgerBytesMax: 1 }],
  ['a ledger that starts over now and then', { garbageLedgerBytesMax: 400 }],
];

/** A store driven through the apply step, so the versions it counts as hiding are the real ones; a model of its live values beside it. */
class Driver {
  private nowMs = 1_000;
  private nextKey = 0;
  private nextTxn = 0;
  readonly liveKeys: number[] = [];
  readonly deadKeys: number[] = [];
  /** The value each key ever written has now (undefined: deleted). */
  readonly model = new Map<number, number | undefined>();
  /** Versions applied, and removed by the collections of stores closed by a reopen. */
  private versionsWritten = 0;
  private versionsRemovedBefore = 0;
  /** The collection step in flight, planned and not yet finished: one at most. */
  private pending: { plan: GcStepPlanOfStore; opsLeft: number } | undefined;

  private constructor(
    public store: MvccStore,
    private readonly engine: Engine,
    private readonly options: Omit<MvccStoreOptions, 'historyMs'>,
  ) {}

  static async open(options: Omit<MvccStoreOptions, 'historyMs'> = {}, engine: Engine = new MemoryEngine()) {
    return new Driver(await openOccStore(engine, options), engine, options);
  }

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
    this.versionsWritten += writes.length;
  }

  /**
   * The physical rows of user space are exactly the versions written less those collection says
   * it removed: no version is removed twice (or counted without being removed), none is missed.
   */
  async expectRemovalsCounted(): Promise<void> {
    const rows = await readRange(this.engine, { gte: userSpaceStart }, Number.MAX_SAFE_INTEGER);
    expect(rows.length).toBe(this.versionsWritten - this.versionsRemovedBefore - this.store.gcStats.versionsRemoved);
  }

  async run(op: Op): Promise<void> {
    if (this.pending !== undefined && this.pending.opsLeft-- <= 0) await this.finishPending();
    switch (op.kind) {
      case 'send': {
        const n = this.nextKey++;
        await this.apply([{ kind: 'put', key: encodeKey(['k', n]), value: Uint8Array.of(1), isNewKey: true }]);
        this.liveKeys.push(n);
        this.model.set(n, 1);
        return;
      }
      case 'overwrite':
      case 'delete':
      case 'delete-vouched': {
        if (this.liveKeys.length === 0) return;
        const index = op.pick % this.liveKeys.length;
        const n = this.liveKeys[index] as number;
        const key = encodeKey(['k', n]);
        if (op.kind === 'overwrite') {
          const value = ((this.model.get(n) ?? 0) + 1) % 250;
          await this.apply([{ kind: 'put', key, value: Uint8Array.of(value) }]);
          this.model.set(n, value);
        } else {
          await this.apply([{ kind: 'delete', key, ...(op.kind === 'delete-vouched' ? { isLiveKey: true } : {}) }]);
          this.liveKeys.splice(index, 1);
          this.deadKeys.push(n);
          this.model.set(n, undefined);
        }
        return;
      }
      case 'revive': {
        if (this.deadKeys.length === 0) return;
        const index = op.pick % this.deadKeys.length;
        const n = this.deadKeys[index] as number;
        await this.apply([{ kind: 'put', key: encodeKey(['k', n]), value: Uint8Array.of(251) }]);
        this.deadKeys.splice(index, 1);
        this.liveKeys.push(n);
        this.model.set(n, 251);
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
      case 'reopen':
        // A plan of the old store is dropped, as the node's scheduler drops one of a replaced state.
        this.pending = undefined;
        this.versionsRemovedBefore += this.store.gcStats.versionsRemoved;
        this.store = await openOccStore(this.engine, this.options);
        return;
    }
  }

  /** Steps until a pass (or, of the ledger, everything due) completes; the versions removed. */
  async fullPass(rowsMax: number): Promise<number> {
    const before = this.store.gcStats.versionsRemoved;
    await this.finishPending();
    while (!(await this.store.collectGarbage({ rowsMax })).isPassComplete);
    return this.store.gcStats.versionsRemoved - before;
  }

  /** Every key reads what the model says, at the newest commit. */
  async expectModelValues(): Promise<void> {
    for (const [n, value] of this.model) {
      const read = await this.store.getAt(encodeKey(['k', n]), this.store.lastCommitTs);
      expect(read === undefined ? undefined : read[0], `key ${n}`).toBe(value);
    }
  }
}

describe.each(configurations)('MvccStore.hasGarbageToCollect, with %s', (_name, options) => {
  it('says there is nothing to collect only when collecting would remove nothing but markers the horizon just reached', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const driver = await Driver.open(options);
        for (const op of ops) {
          await driver.run(op);
          await driver.expectRemovalsCounted();
          if (driver.store.hasGarbageToCollect) continue;
          // Markers that are their keys' newest versions wait for the newest of them; nothing else waits.
          const { deletionMarkersRemoved } = driver.store.gcStats;
          const removed = await driver.fullPass(3);
          expect(removed).toBe(driver.store.gcStats.deletionMarkersRemoved - deletionMarkersRemoved);
          if (removed === 0) expect(driver.store.hasGarbageToCollect).toBe(false);
        }
        await driver.expectModelValues();
      }),
      { numRuns: 200 },
    );
  });

  it('comes to nothing to collect once writes stop and time passes, with one version per live key left and every value as written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const engine = new MemoryEngine();
        const driver = await Driver.open(options, engine);
        for (const op of ops) await driver.run(op);
        await driver.finishPending();
        await driver.expectModelValues();
        // Past the history window, in a few commits: the horizon moves by checkpoints, so a marker
        // may wait for a second one. Collection runs only when it says there is something to remove.
        for (let round = 0; round < 3; round++) {
          await driver.run({ kind: 'tick', ms: 100 });
          for (let pass = 0; driver.store.hasGarbageToCollect; pass++) {
            expect(pass).toBeLessThan(4);
            await driver.fullPass(4);
          }
        }
        // What is left of user space: one value version per live key.
        const userRows = await readRange(engine, { gte: userSpaceStart }, Number.MAX_SAFE_INTEGER);
        expect(userRows.length).toBe(driver.liveKeys.length);
        await driver.expectModelValues();
        await driver.expectRemovalsCounted();
      }),
      { numRuns: 150 },
    );
  });
});

describe('MvccStore collection by passes over the keyspace', () => {
  /** Every step a pass: a ledger too small to take anything. */
  const passesOnly = { garbageLedgerBytesMax: 1 };

  it('waits for the horizon to reach the newest kept marker instead of reading the keyspace again', async () => {
    const driver = await Driver.open(passesOnly);
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
    const engine = new MemoryEngine();
    const first = await Driver.open(passesOnly, engine);
    for (let i = 0; i < 5; i++) await first.run({ kind: 'send' });
    // Reopened, the store cannot know whether the keyspace holds garbage until a pass has read it.
    const driver = await Driver.open(passesOnly, engine);
    expect(driver.store.hasGarbageToCollect).toBe(true);
    for (let i = 0; i < 5; i++) await driver.run({ kind: 'send' });
    await driver.fullPass(2);
    expect(driver.store.hasGarbageToCollect).toBe(false);
    for (let i = 0; i < 5; i++) await driver.run({ kind: 'send' });
    expect(driver.store.hasGarbageToCollect).toBe(false);
    await driver.run({ kind: 'overwrite', pick: 3 });
    expect(driver.store.hasGarbageToCollect).toBe(true);
  });
});

describe('MvccStore collection by the garbage ledger', () => {
  it('a new store needs no pass: it removes exactly what was hidden, without reading the live rows', async () => {
    const driver = await Driver.open();
    expect(driver.store.hasGarbageToCollect).toBe(false); // nothing was ever applied: no garbage
    expect(driver.store.garbageLedger.isComplete).toBe(true);
    for (let i = 0; i < 50; i++) await driver.run({ kind: 'send' });
    expect(driver.store.hasGarbageToCollect).toBe(false);
    await driver.run({ kind: 'overwrite', pick: 7 });
    await driver.run({ kind: 'delete-vouched', pick: 9 });
    await driver.run({ kind: 'tick', ms: 1 });
    expect(driver.store.hasGarbageToCollect).toBe(true);
    const report = await driver.store.collectGarbage();
    expect(report.kind).toBe('ledger');
    // Two hidden versions (the overwritten value, the deleted one); the marker waits for the horizon.
    expect(report.deadVersions).toBe(2);
    expect(report.rowsExamined).toBe(2);
    expect(driver.store.hasGarbageToCollect).toBe(false);
    await driver.run({ kind: 'tick', ms: 100 });
    await driver.run({ kind: 'tick', ms: 100 });
    expect(driver.store.hasGarbageToCollect).toBe(true);
    expect((await driver.store.collectGarbage()).deletionMarkersRemoved).toBe(1);
    expect(driver.store.gcStats.passesCompleted).toBe(0);
    await driver.expectModelValues();
  });

  it('a reopened store runs passes until one starts with the horizon past what the store held, then only the ledger', async () => {
    const engine = new MemoryEngine();
    const first = await Driver.open({}, engine);
    for (let i = 0; i < 10; i++) await first.run({ kind: 'send' });
    for (let i = 0; i < 3; i++) await first.run({ kind: 'delete', pick: i });
    const driver = await Driver.open({}, engine);
    for (const [n, value] of first.model) driver.model.set(n, value);
    expect(driver.store.garbageLedger.isComplete).toBe(false);
    // Garbage made now is the ledger's; what the store held at opening, a pass's.
    await driver.run({ kind: 'send' });
    for (let round = 0; round < 4 && !driver.store.garbageLedger.isComplete; round++) {
      await driver.run({ kind: 'tick', ms: 100 });
      while (driver.store.hasGarbageToCollect) await driver.fullPass(5);
    }
    expect(driver.store.garbageLedger.isComplete).toBe(true);
    const passes = driver.store.gcStats.passesCompleted;
    await driver.run({ kind: 'overwrite', pick: 0 });
    await driver.run({ kind: 'tick', ms: 1 });
    expect((await driver.store.collectGarbage()).kind).toBe('ledger');
    expect(driver.store.gcStats.passesCompleted).toBe(passes);
    await driver.expectModelValues();
  });

  it('starts over when an apply step brings no notes, and passes find what it dropped', async () => {
    const driver = await Driver.open();
    for (let i = 0; i < 4; i++) await driver.run({ kind: 'send' });
    await driver.run({ kind: 'overwrite', pick: 0 });
    expect(driver.store.garbageLedger.entries).toBe(1);
    // A batch written without the apply step's notes: the ledger can no longer hold all garbage.
    await driver.store.applyExclusive(
      async () => ({
        batch: {
          versions: [{ key: encodeKey(['k', 1]), commitTsUs: driver.store.lastCommitTs + 1, value: undefined }],
          systemWrites: [],
          appliedIndex: driver.store.appliedIndex + 1,
          lastCommitTs: driver.store.lastCommitTs + 1,
          horizon: driver.store.horizonTracker.afterCommit(driver.store.lastCommitTs + 1),
        },
        result: undefined,
      }),
      { sync: false },
    );
    driver.model.set(1, undefined);
    expect(driver.store.garbageLedger).toMatchObject({ entries: 0, isComplete: false });
    for (let round = 0; round < 4; round++) {
      await driver.run({ kind: 'tick', ms: 100 });
      while (driver.store.hasGarbageToCollect) await driver.fullPass(5);
    }
    expect(driver.store.garbageLedger.isComplete).toBe(true);
    await driver.expectModelValues();
  });
});
