import fc from 'fast-check';
import { expect } from 'vitest';
import { readRange, type Engine, type EngineWrite } from '../../src/storage/engine.js';
import { compareBytes } from '../../src/storage/key-codec.js';

/** A model engine: a plain Map keyed by hex, sorted on demand. */
export class ModelKv {
  readonly entries = new Map<string, Uint8Array>();

  apply(batch: readonly EngineWrite[]): void {
    for (const w of batch) {
      if (w.kind === 'put') this.entries.set(hex(w.key), w.value.slice());
      else this.entries.delete(hex(w.key));
    }
  }

  clone(): ModelKv {
    const copy = new ModelKv();
    for (const [k, v] of this.entries) copy.entries.set(k, v);
    return copy;
  }

  range(gte: Uint8Array | undefined, lt: Uint8Array | undefined, reverse: boolean): Array<[string, string]> {
    const rows = [...this.entries]
      .map(([k, v]) => [fromHex(k), v] as const)
      .filter(
        ([k]) => (gte === undefined || compareBytes(k, gte) >= 0) && (lt === undefined || compareBytes(k, lt) < 0),
      )
      .sort(([a], [b]) => compareBytes(a, b))
      .map(([k, v]) => [hex(k), hex(v)] as [string, string]);
    return reverse ? rows.reverse() : rows;
  }
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function fromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** Short keys over a small alphabet, so that batches collide, overwrite and delete each other. */
export const smallKeyArb = fc
  .array(fc.constantFrom(0, 1, 2, 0xff), { minLength: 0, maxLength: 3 })
  .map((a) => Uint8Array.from(a));
export const writeArb: fc.Arbitrary<EngineWrite> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: smallKeyArb, value: fc.uint8Array({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: smallKeyArb }),
);
export const batchArb = fc.array(writeArb, { minLength: 1, maxLength: 5 });
const boundArb = fc.option(smallKeyArb, { nil: undefined });

export async function dumpEngine(engine: Engine): Promise<Array<[string, string]>> {
  return (await readRange(engine, {}, Number.MAX_SAFE_INTEGER)).map((e) => [hex(e.key), hex(e.value)]);
}

/**
 * The Engine contract as a property: random batches, then random range reads (forward, reverse,
 * with a seek), snapshot isolation, and point reads, all against ModelKv.
 */
export function engineContractProperty(openEngine: () => Promise<Engine>) {
  return fc.asyncProperty(
    fc.array(batchArb, { maxLength: 6 }),
    batchArb,
    boundArb,
    boundArb,
    fc.boolean(),
    fc.option(smallKeyArb, { nil: undefined }),
    smallKeyArb,
    async (batches, laterBatch, gte, lt, reverse, seekTarget, probe) => {
      const engine = await openEngine();
      try {
        const model = new ModelKv();
        for (const batch of batches) {
          await engine.write(batch, { sync: false });
          model.apply(batch);
        }
        const snapshot = engine.snapshot();
        const frozen = model.clone();
        const iterator = engine.iterator({ gte, lt, reverse });
        await engine.write(laterBatch, { sync: true });
        model.apply(laterBatch);

        // The iterator was opened before the later batch: it must not see it.
        if (seekTarget !== undefined) iterator.seek(seekTarget);
        const seen: Array<[string, string]> = [];
        for (let page = await iterator.next(2); page.length > 0; page = await iterator.next(2)) {
          for (const e of page) seen.push([hex(e.key), hex(e.value)]);
        }
        await iterator.close();
        let expected = frozen.range(gte, lt, reverse);
        if (seekTarget !== undefined) {
          expected = expected.filter(([k]) => {
            const order = compareBytes(fromHex(k), seekTarget);
            return reverse ? order <= 0 : order >= 0;
          });
        }
        expect(seen).toEqual(expected);

        const snapshotRows = (await readRange(snapshot, { gte, lt, reverse }, 1000)).map((e) => [
          hex(e.key),
          hex(e.value),
        ]);
        expect(snapshotRows).toEqual(frozen.range(gte, lt, reverse));
        expect((await snapshot.getMany([probe, probe])).map(hexOrUndefined)).toEqual(
          (await Promise.all([snapshot.get(probe), snapshot.get(probe)])).map(hexOrUndefined),
        );
        expect(hexOrUndefined(await snapshot.get(probe))).toBe(
          frozen.entries.has(hex(probe)) ? hex(frozen.entries.get(hex(probe)) as Uint8Array) : undefined,
        );
        await snapshot.release();

        expect(await dumpEngine(engine)).toEqual(model.range(undefined, undefined, false));
        expect((await engine.getMany([probe, Uint8Array.of(0xfe)])).map(hexOrUndefined)).toEqual([
          model.entries.has(hex(probe)) ? hex(model.entries.get(hex(probe)) as Uint8Array) : undefined,
          model.entries.has('fe') ? hex(model.entries.get('fe') as Uint8Array) : undefined,
        ]);
        expect(hexOrUndefined(await engine.get(probe))).toBe(
          model.entries.has(hex(probe)) ? hex(model.entries.get(hex(probe)) as Uint8Array) : undefined,
        );
      } finally {
        await engine.close();
      }
    },
  );
}

function hexOrUndefined(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : hex(bytes);
}
