import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineClosedError, readRange } from '../../src/storage/engine.js';
import { LevelEngine } from '../../src/storage/level-engine.js';
import { makeTempDir } from '../support/temp-dir.js';
import { dumpEngine, engineContractProperty } from './engine-contract.js';

const dir = makeTempDir('level-engine');
afterAll(() => dir.cleanup());
let opened = 0;
const openFresh = () => LevelEngine.open(join(dir.path, `db-${opened++}`));

describe('LevelEngine', () => {
  it('behaves as an ordered map: batches, ranges both ways, seeks and snapshots equal the model', async () => {
    await fc.assert(engineContractProperty(openFresh), { numRuns: 150 });
  });

  it('keeps synced and flushed writes across close and reopen', async () => {
    const location = join(dir.path, 'reopen');
    const engine = await LevelEngine.open(location);
    await engine.write([{ kind: 'put', key: Uint8Array.of(1), value: Uint8Array.of(7) }], { sync: true });
    await engine.write([{ kind: 'put', key: Uint8Array.of(2), value: Uint8Array.of(8) }], { sync: false });
    await engine.flush();
    await engine.close();
    const reopened = await LevelEngine.open(location);
    expect(await dumpEngine(reopened)).toEqual([
      ['01', '07'],
      ['02', '08'],
    ]);
    await reopened.close();
  });

  it("brings back a bulk iteration in large reads, and other iterations in LevelDB's small ones", async () => {
    const engine = await openFresh();
    const value = new Uint8Array(1024);
    const rows = 500;
    await engine.write(
      Array.from({ length: rows }, (_, i) => ({ kind: 'put' as const, key: Uint8Array.of(i >> 8, i & 0xff), value })),
      { sync: false },
    );
    const firstRead = async (isBulk: boolean) => {
      const iterator = engine.iterator({ isBulk });
      try {
        return (await iterator.next(rows)).length;
      } finally {
        await iterator.close();
      }
    };
    // classic-level stops a read at 16 KiB by default: about 16 rows of 1 KiB.
    expect(await firstRead(false)).toBeLessThan(64);
    // levelDbIteratorBatchBytes (1 MiB) holds every row asked for here.
    expect(await firstRead(true)).toBe(rows);
    const all = await readRange(engine, {}, rows);
    expect(all.map((entry) => (entry.key[0] as number) * 256 + (entry.key[1] as number))).toEqual(
      Array.from({ length: rows }, (_, i) => i),
    );
    await engine.close();
  });

  it('refuses operations after close with EngineClosedError', async () => {
    const engine = await openFresh();
    await engine.close();
    await expect(engine.get(Uint8Array.of(1))).rejects.toThrow(EngineClosedError);
  });
});
