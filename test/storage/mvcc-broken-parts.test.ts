import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { mvccProperty } from './mvcc-store-property.js';

// Two broken collectors, chosen per test through this switch: one removes the version visible at
// the watermark (the base), the other removes deletion markers above the horizon.
const broken = vi.hoisted(() => ({
  mode: 'none' as 'none' | 'drop-base' | 'drop-young-markers' | 'deaf-dead-prefixes',
}));

// A dead-run cache that never hears of writes: a put into a remembered run stays hidden.
vi.mock('../../src/storage/dead-prefix-cache.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/storage/dead-prefix-cache.js')>();
  class DeafDeadPrefixCache extends original.DeadPrefixCache {
    override noteWrites(versions: Parameters<typeof original.DeadPrefixCache.prototype.noteWrites>[0]): void {
      if (broken.mode !== 'deaf-dead-prefixes') super.noteWrites(versions);
    }
  }
  return { ...original, DeadPrefixCache: DeafDeadPrefixCache };
});

vi.mock('../../src/storage/version-gc.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/storage/version-gc.js')>();
  return {
    ...original,
    planVersionGc: (...args: Parameters<typeof original.planVersionGc>) => {
      const [rows, start, watermarkTs, horizonTs, options] = args;
      if (broken.mode === 'drop-base')
        return original.planVersionGc(rows, start, watermarkTs + 1_000_000, horizonTs, options);
      if (broken.mode === 'drop-young-markers')
        return original.planVersionGc(rows, start, watermarkTs, Number.MAX_SAFE_INTEGER, options);
      return original.planVersionGc(...args);
    },
  };
});

describe('the MVCC model check fed a broken collector or dead-run cache', () => {
  it('fails when collection removes the version that reads at the watermark still see', async () => {
    broken.mode = 'drop-base';
    const result = await fc.check(
      mvccProperty(async () => new MemoryEngine()),
      { numRuns: 1000, seed: 11 },
    );
    expect(result.failed).toBe(true);
  });

  it('fails when collection removes deletion markers younger than the horizon (OCC would miss conflicts)', async () => {
    broken.mode = 'drop-young-markers';
    const result = await fc.check(
      mvccProperty(async () => new MemoryEngine()),
      { numRuns: 1000, seed: 12 },
    );
    expect(result.failed).toBe(true);
  });

  it('fails when the dead-run cache does not hear of writes', async () => {
    broken.mode = 'deaf-dead-prefixes';
    const result = await fc.check(
      mvccProperty(async () => new MemoryEngine()),
      { numRuns: 1000, seed: 14 },
    );
    expect(result.failed).toBe(true);
  });

  it('passes with the real collector (the switch above is the only difference)', async () => {
    broken.mode = 'none';
    const result = await fc.check(
      mvccProperty(async () => new MemoryEngine()),
      { numRuns: 200, seed: 13 },
    );
    expect(result.failed).toBe(false);
  });
});
