import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineClosedError, readRange, type EngineWrite } from '../../src/storage/engine.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { batchArb, dumpEngine, engineContractProperty, hex, ModelKv } from './engine-contract.js';

const runs = { numRuns: 1000 };

/** What survives a crash by the documented model: every batch up to the last synced one, plus `kept` more. */
function survivingState(steps: ReadonlyArray<{ batch: readonly EngineWrite[]; sync: boolean }>, kept: number): ModelKv {
  const model = new ModelKv();
  let lastSynced = -1;
  steps.forEach((s, i) => {
    if (s.sync) lastSynced = i;
  });
  steps.slice(0, lastSynced + 1 + kept).forEach((s) => model.apply(s.batch));
  return model;
}

const stepsArb = fc.array(fc.record({ batch: batchArb, sync: fc.boolean() }), { maxLength: 12 });

describe('MemoryEngine', () => {
  it('behaves as an ordered map: batches, ranges both ways, seeks and snapshots equal the model', async () => {
    await fc.assert(
      engineContractProperty(async () => new MemoryEngine()),
      runs,
    );
  });

  it('a crash loses exactly the writes that were not synced', async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, async (steps) => {
        const engine = new MemoryEngine();
        for (const step of steps) await engine.write(step.batch, { sync: step.sync });
        engine.crash();
        const expected = survivingState(steps, 0);
        expect(await dumpEngine(engine)).toEqual(expected.range(undefined, undefined, false));
      }),
      runs,
    );
  });

  it('a crash may keep a prefix of the unsynced batches, never a later one without the earlier', async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, fc.nat(12), async (steps, keptWanted) => {
        const engine = new MemoryEngine();
        for (const step of steps) await engine.write(step.batch, { sync: step.sync });
        const kept = Math.min(keptWanted, engine.unsyncedBatchCount);
        engine.crash({ unsyncedBatchesKept: kept });
        expect(await dumpEngine(engine)).toEqual(survivingState(steps, kept).range(undefined, undefined, false));
      }),
      runs,
    );
  });

  it('flush makes earlier unsynced writes survive a crash', async () => {
    const engine = new MemoryEngine();
    await engine.write([{ kind: 'put', key: Uint8Array.of(1), value: Uint8Array.of(9) }], { sync: false });
    await engine.flush();
    await engine.write([{ kind: 'put', key: Uint8Array.of(2), value: Uint8Array.of(9) }], { sync: false });
    engine.crash();
    expect(await engine.get(Uint8Array.of(1))).toEqual(Uint8Array.of(9));
    expect(await engine.get(Uint8Array.of(2))).toBeUndefined();
  });

  it('the crash-model check detects an engine that keeps an unsynced write', async () => {
    // Feed the check something broken: a "crash" that keeps everything must not pass as one.
    const result = await fc.check(
      fc.asyncProperty(stepsArb, async (steps) => {
        const engine = new MemoryEngine();
        for (const step of steps) await engine.write(step.batch, { sync: step.sync });
        await engine.flush(); // the broken part: nothing is lost any more
        engine.crash();
        expect(await dumpEngine(engine)).toEqual(survivingState(steps, 0).range(undefined, undefined, false));
      }),
      { numRuns: 1000, seed: 7 },
    );
    expect(result.failed).toBe(true);
  });

  it('iterators and snapshots of the crashed incarnation fail clearly', async () => {
    const engine = new MemoryEngine();
    await engine.write([{ kind: 'put', key: Uint8Array.of(1), value: Uint8Array.of(1) }], { sync: true });
    const iterator = engine.iterator({});
    const snapshot = engine.snapshot();
    engine.crash();
    await expect(iterator.next(1)).rejects.toThrow(EngineClosedError);
    await expect(snapshot.get(Uint8Array.of(1))).rejects.toThrow(EngineClosedError);
    expect(await engine.get(Uint8Array.of(1))).toEqual(Uint8Array.of(1));
  });

  it('copies what it stores, so a caller mutating its buffer afterwards changes nothing', async () => {
    const engine = new MemoryEngine();
    const value = Uint8Array.of(1, 2, 3);
    await engine.write([{ kind: 'put', key: Uint8Array.of(5), value }], { sync: false });
    value[0] = 99;
    expect(await engine.get(Uint8Array.of(5))).toEqual(Uint8Array.of(1, 2, 3));
  });

  it('keeps order across many chunk splits', async () => {
    const engine = new MemoryEngine();
    const keys = Array.from({ length: 3000 }, (_, i) => (i * 7919) % 3000);
    for (const k of keys)
      await engine.write([{ kind: 'put', key: Uint8Array.of(k >> 8, k & 0xff), value: Uint8Array.of(1) }], {
        sync: false,
      });
    for (let k = 0; k < 3000; k += 3)
      await engine.write([{ kind: 'delete', key: Uint8Array.of(k >> 8, k & 0xff) }], { sync: false });
    const rows = await dumpEngine(engine);
    expect(rows.length).toBe(2000);
    const sorted = [...rows].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(rows).toEqual(sorted);
    await fc.assert(
      fc.asyncProperty(fc.nat(3000), fc.nat(3000), fc.boolean(), async (from, to, reverse) => {
        const gte = Uint8Array.of(from >> 8, from & 0xff);
        const lt = Uint8Array.of(to >> 8, to & 0xff);
        const seen = (await readRange(engine, { gte, lt, reverse }, 5000)).map((e) => hex(e.key));
        const expected = sorted.filter(([k]) => k >= hex(gte) && k < hex(lt)).map(([k]) => k);
        expect(seen).toEqual(reverse ? expected.reverse() : expected);
      }),
      runs,
    );
  });
});
