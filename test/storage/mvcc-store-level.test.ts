import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { LevelEngine } from '../../src/storage/level-engine.js';
import { makeTempDir } from '../support/temp-dir.js';
import { mvccProperty } from './mvcc-store-property.js';

const dir = makeTempDir('mvcc-level');
afterAll(() => dir.cleanup());
let opened = 0;

describe('MvccStore on LevelDB', () => {
  it('snapshot reads at any readable ts equal a simple model, through GC and open views', async () => {
    await fc.assert(
      mvccProperty(async () => LevelEngine.open(join(dir.path, `db-${opened++}`))),
      { numRuns: 150 },
    );
  });
});
