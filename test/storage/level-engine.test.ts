import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineClosedError } from '../../src/storage/engine.js';
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

  it('refuses operations after close with EngineClosedError', async () => {
    const engine = await openFresh();
    await engine.close();
    await expect(engine.get(Uint8Array.of(1))).rejects.toThrow(EngineClosedError);
  });
});
