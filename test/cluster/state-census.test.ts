import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { StateCensus } from '../../src/cluster/state-census.js';
import { StateStore } from '../../src/cluster/state-store.js';
import { GenerationKeys, globalKeys, queueKeys } from '../../src/queue/layout/key-layout.js';
import { classifyStateKey } from '../../src/queue/layout/key-family.js';
import { readRange } from '../../src/storage/engine.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { userSpaceStart } from '../../src/storage/version-key.js';
import { makeTempDir } from '../support/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function openState(): Promise<StateStore> {
  const dir = makeTempDir('census');
  cleanups.push(dir.cleanup);
  return StateStore.open(dir.path);
}

/** Keys of a few families over two generations of one queue, plus its tombstones. */
const keyPool = [
  queueKeys.meta('q'),
  queueKeys.generation('q'),
  globalKeys.queueIndex('q'),
  ...[1, 2].flatMap((gen) => {
    const keys = new GenerationKeys('q', gen);
    return [
      keys.data(0, 'a'),
      keys.data(0, 'b'),
      keys.visibility(0, 5, 1n, 'a'),
      keys.age(0, 5, 'a'),
      keys.dedup(0, '', 'd'),
      globalKeys.tombstone('q', gen),
    ];
  }),
];

const opsArb = fc.array(
  fc.array(fc.record({ key: fc.integer({ min: 0, max: keyPool.length - 1 }), isPut: fc.boolean() }), {
    minLength: 1,
    maxLength: 5,
  }),
  { minLength: 1, maxLength: 25 },
);

async function applyWrites(state: StateStore, census: StateCensus, writes: TxnWrite[], n: number): Promise<void> {
  const mvcc = state.mvcc;
  const result = await applyEntries(mvcc, [
    {
      index: mvcc.appliedIndex + 1,
      leaderStampTsUs: 1_000_000_000 + n * 1000,
      txns: [{ txnId: `t${n}`, startTsUs: mvcc.lastCommitTs, nowMs: 1_000_000 + n, readKeys: [], writes }],
    },
  ]);
  census.onApplied({ liveKeyChanges: result.liveKeyChanges, versionsWritten: result.versionsWritten });
}

function toWrites(ops: ReadonlyArray<{ key: number; isPut: boolean }>): TxnWrite[] {
  return ops.map(({ key, isPut }): TxnWrite => {
    const bytes = keyPool[key] as Uint8Array;
    return isPut ? { kind: 'put', key: bytes, value: Uint8Array.of(1) } : { kind: 'delete', key: bytes };
  });
}

async function physicalUserRows(state: StateStore): Promise<number> {
  return (await readRange(state.engine, { gte: userSpaceStart }, Number.MAX_SAFE_INTEGER)).length;
}

describe('state census', () => {
  it('keeps, on apply, the same counts a fresh scan finds, through writes during its own scan and garbage collection (property)', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, fc.integer({ min: 0, max: 24 }), async (batches, scanAt) => {
        const state = await openState();
        try {
          const census = new StateCensus({ classify: classifyStateKey });
          for (const [n, batch] of batches.entries()) {
            // The census starts counting part-way through: what is applied during its scan must count too.
            if (n === scanAt) census.onStateOpened(state);
            await applyWrites(state, census, toWrites(batch), n);
            if (n % 4 === 3) await state.mvcc.collectGarbage({ rowsMax: 5 });
          }
          if (scanAt >= batches.length) census.onStateOpened(state);
          await census.countDone;
          const fresh = new StateCensus({ classify: classifyStateKey });
          fresh.onStateOpened(state);
          await fresh.countDone;
          expect(Object.fromEntries(census.rowsByFamily() ?? [])).toEqual(
            Object.fromEntries(fresh.rowsByFamily() ?? []),
          );
          expect(census.tombstonedRows()).toBe(fresh.tombstonedRows());
          const versions = census.versions();
          expect(versions).toEqual(fresh.versions());
          expect((versions?.live ?? 0) + (versions?.dead ?? 0)).toBe(await physicalUserRows(state));
        } finally {
          await state.close();
        }
      }),
      { numRuns: 100 },
    );
  });

  it('counts rows left in tombstoned generations, per family, as the reaper would see them', async () => {
    const state = await openState();
    try {
      const census = new StateCensus({ classify: classifyStateKey });
      census.onStateOpened(state);
      await census.countDone;
      const gen1 = new GenerationKeys('q', 1);
      const put = (key: Uint8Array): TxnWrite => ({ kind: 'put', key, value: Uint8Array.of(1) });
      await applyWrites(
        state,
        census,
        [
          put(queueKeys.meta('q')),
          put(gen1.data(0, 'a')),
          put(gen1.visibility(0, 1, 1n, 'a')),
          put(gen1.age(0, 1, 'a')),
        ],
        0,
      );
      expect(census.tombstonedRows()).toBe(0);
      await applyWrites(state, census, [put(globalKeys.tombstone('q', 1))], 1);
      expect(census.tombstonedRows()).toBe(3);
      expect(Object.fromEntries(census.rowsByFamily() ?? [])).toEqual({
        meta: 1,
        data: 1,
        vis: 1,
        age: 1,
        tombstone: 1,
      });
      await applyWrites(
        state,
        census,
        [
          { kind: 'delete', key: gen1.data(0, 'a') },
          { kind: 'delete', key: gen1.age(0, 1, 'a') },
        ],
        2,
      );
      expect(census.tombstonedRows()).toBe(1);
      expect(census.versions()).toEqual({ live: 3, dead: 4 });
    } finally {
      await state.close();
    }
  });

  it('reports nothing until its first count has finished', async () => {
    const state = await openState();
    try {
      const census = new StateCensus({ classify: classifyStateKey });
      expect(census.rowsByFamily()).toBeUndefined();
      census.onStateOpened(state);
      expect(census.versions()).toBeUndefined();
      await census.countDone;
      expect(census.versions()).toEqual({ live: 0, dead: 0 });
    } finally {
      await state.close();
    }
  });
});
