import fc from 'fast-check';
import { expect } from 'vitest';
import type { Engine } from '../../src/storage/engine.js';
import { encodeKey, keySuccessor, prefixRange, type KeyTuple } from '../../src/storage/key-codec.js';
import { ReadBelowWatermarkError } from '../../src/storage/mvcc-errors.js';
import { MvccStore, type GcStepPlanOfStore, type VersionWrite } from '../../src/storage/mvcc-store.js';
import type { KeyRange } from '../../src/storage/txn.js';
import { hex } from './engine-contract.js';
import { MvccModel } from './mvcc-model.js';

/** Tuples chosen so that encodings are byte prefixes of each other and contain zero bytes. */
export const keyTuples: KeyTuple[] = [
  ['a'],
  ['a', 1],
  ['a', 1, 'x'],
  ['a', 256],
  ['a\0'],
  ['a\0', 'b'],
  ['b'],
  [Uint8Array.of(0)],
  [Uint8Array.of(0, 0)],
  [2],
  [0],
  ['q', 'orders', 'g', 1, 'vis', 0, 1_700_000_000_000, 5],
];
export const keys = keyTuples.map(encodeKey);

const prefixes: KeyTuple[] = [[], ['a'], ['a', 1], ['a\0'], ['q'], [Uint8Array.of(0)]];
const rawBound = fc
  .array(fc.constantFrom(0x00, 0x01, 0x02, 0x14, 0x15, 0x61, 0xff), { maxLength: 4 })
  .map((a) => Uint8Array.from(a));
export const rangeArb: fc.Arbitrary<KeyRange> = fc.oneof(
  fc.constantFrom(...prefixes).map(prefixRange),
  fc.record({ gte: fc.constantFrom(...keys, Uint8Array.of()), lt: fc.constantFrom(...keys, Uint8Array.of(0xff)) }),
  fc.record({ gte: rawBound, lt: rawBound }),
  // Paging bounds: just past a key, which puts a 0x00 right after a complete tuple.
  fc.record({
    gte: fc.constantFrom(...keys, ...keys.map(keySuccessor)),
    lt: fc.constantFrom(...keys.map(keySuccessor)),
  }),
);

export type MvccStep =
  | { kind: 'commit'; gapUs: number; writes: Array<{ keyIndex: number; value: number | undefined }> }
  | { kind: 'gc'; rowsMax: number }
  /** A step planned now and finished `finishAfter` steps later (commits and reads run between). */
  | { kind: 'gc-split'; rowsMax: number; finishAfter: number }
  | { kind: 'open-view' }
  | { kind: 'release-view'; which: number }
  | { kind: 'scan'; range: KeyRange; limit: number };

const stepArb: fc.Arbitrary<MvccStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('commit' as const),
      gapUs: fc.integer({ min: 1, max: 4000 }),
      writes: fc.array(
        fc.record({ keyIndex: fc.nat(keys.length - 1), value: fc.option(fc.nat(255), { nil: undefined }) }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('gc' as const), rowsMax: fc.integer({ min: 1, max: 40 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('gc-split' as const),
      rowsMax: fc.integer({ min: 1, max: 40 }),
      finishAfter: fc.integer({ min: 0, max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'open-view' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release-view' as const), which: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('scan' as const),
      range: rangeArb,
      limit: fc.integer({ min: 1, max: 6 }),
    }),
  },
);

/** historyMs of the property: 5 ms of commit time, so the horizon passes often. */
const historyMs = 5;

/**
 * Snapshot reads at any readable timestamp equal the model, through commits, garbage collection
 * steps (whole, or planned and finished later with commits, reads and views between) and open views; reads below the floor fail clearly; and whether a key has a version
 * newer than t (what OCC asks) is exact for every t at or above the horizon.
 */
export function mvccProperty(openEngine: () => Promise<Engine>) {
  return fc.asyncProperty(
    fc.array(stepArb, { minLength: 1, maxLength: 25, size: 'max' }),
    fc.array(fc.tuple(rangeArb, fc.nat(), fc.integer({ min: 1, max: 6 }), fc.boolean()), {
      minLength: 1,
      maxLength: 4,
    }),
    async (steps, reads) => {
      const engine = await openEngine();
      try {
        // A tiny dead-run cache, so that remembering, cutting and evicting runs all happen here.
        const store = await MvccStore.open(engine, { historyMs, deadPrefixKeysMin: 1, deadPrefixesMax: 3 });
        const model = new MvccModel();
        const views: ReturnType<MvccStore['readView']>[] = [];
        let index = 0;
        let ts = 0;
        // At most one collection step in flight, as the node's scheduler runs them.
        let pending: { plan: GcStepPlanOfStore; stepsLeft: number } | undefined;
        const finishPending = async (): Promise<void> => {
          if (pending === undefined) return;
          const { plan } = pending;
          pending = undefined;
          await store.finishGarbageStep(plan);
        };
        for (const step of steps) {
          if (pending !== undefined && pending.stepsLeft-- <= 0) await finishPending();
          if (step.kind === 'commit') {
            ts += step.gapUs;
            const versions: VersionWrite[] = step.writes.map((w) => ({
              key: keys[w.keyIndex] as Uint8Array,
              commitTsUs: ts,
              value: w.value === undefined ? undefined : Uint8Array.of(w.value),
            }));
            for (const v of versions) model.write(v.key, v.commitTsUs, v.value);
            index++;
            await store.applyExclusive(
              async () => ({
                batch: {
                  versions,
                  systemWrites: [],
                  appliedIndex: index,
                  lastCommitTs: ts,
                  horizon: store.horizonTracker.afterCommit(ts),
                },
                result: undefined,
              }),
              { sync: false },
            );
          } else if (step.kind === 'gc') {
            if (pending === undefined) await store.collectGarbage({ rowsMax: step.rowsMax });
          } else if (step.kind === 'gc-split') {
            if (pending === undefined)
              pending = { plan: await store.planGarbageStep({ rowsMax: step.rowsMax }), stepsLeft: step.finishAfter };
          } else if (step.kind === 'scan') {
            const rows = await store.scanAt(step.range, ts, { limit: step.limit });
            expect(rows.map((r) => [hex(r.key), hex(r.value)])).toEqual(
              model.scanAt(step.range, ts, step.limit, false).map((r) => [hex(r.key), hex(r.value)]),
            );
          } else if (step.kind === 'open-view') {
            views.push(store.readView());
          } else if (views.length > 0) {
            views.splice(step.which % views.length, 1)[0]?.release();
          }
        }
        await finishPending();
        expect(store.lastCommitTs).toBe(ts);
        // Views still open and younger than the horizon read exactly what the model says.
        for (const view of views) {
          if (view.ts < store.horizonTs) continue;
          for (const key of keys) expect(await view.get(key)).toEqual(model.getAt(key, view.ts));
        }
        for (const [range, tsPick, limit, reverse] of reads) {
          const readTs = tsPick % (ts + 1);
          if (readTs < store.readFloorTs) {
            await expect(store.scanAt(range, readTs, { limit, reverse })).rejects.toThrow(ReadBelowWatermarkError);
            await expect(store.getAt(keys[0] as Uint8Array, readTs)).rejects.toThrow(ReadBelowWatermarkError);
            continue;
          }
          const rows = await store.scanAt(range, readTs, { limit, reverse });
          expect(rows.map((r) => [hex(r.key), hex(r.value)])).toEqual(
            model.scanAt(range, readTs, limit, reverse).map((r) => [hex(r.key), hex(r.value)]),
          );
          for (const key of keys) expect(await store.getAt(key, readTs)).toEqual(model.getAt(key, readTs));
        }
        const latest = await store.latestCommitTsOfKeys(keys);
        for (const [i, key] of keys.entries()) {
          const stored = await store.latestCommitTs(key);
          expect(latest[i]).toBe(stored);
          const modelLatest = model.latestCommitTs(key);
          for (let t = store.horizonTs; t <= ts; t += Math.max(1, Math.floor((ts - store.horizonTs) / 7))) {
            expect((stored ?? -1) > t, `key ${i} newer than ${t}`).toBe((modelLatest ?? -1) > t);
          }
        }
        for (const view of views) view.release();
        expect(store.openViewCount).toBe(0);
      } finally {
        await engine.close();
      }
    },
  );
}
