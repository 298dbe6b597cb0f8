import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { mvccProperty } from './mvcc-store-property.js';

// Two broken collectors, chosen per test through this switch: one removes the version visible at
// the watermark (the base), the other removes deletion markers above the horizon.
const broken = vi.hoisted(() => ({ mode: 'none' as 'none' | 'drop-base' | 'drop-young-markers' }));

vi.mock('../../src/storage/version-gc.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/storage/version-gc.js')>();
  return {
    ...original,
    planVersionGc: (...args: Parameters<typeof original.planVersionGc>) => {
      const [rows, start, watermarkTs, horizonTs, options] = args;
      if (broken.mode === 'drop-base') return original.planVersionGc(rows, start, watermarkTs + 1_000_000, horizonTs, options);
      if (broken.mode === 'drop-young-markers') return original.planVersionGc(rows, start, watermarkTs, Number.MAX_SAFE_INTEGER, options);
      return original.planVersionGc(...args);
    },
  };
});

describe('the MVCC model check fed a broken garbage collector', () => {
  it('fails when collection removes the version that reads at the watermark still see', async () => {
    broken.mode = 'drop-base';
    const result = await fc.check(mvccProperty(async () => new MemoryEngine()), { numRuns: 1000, seed: 11 });
    expect(result.failed).toBe(true);
  });

  it('fails when collection removes deletion markers younger than the horizon (OCC would miss conflicts)', async () => {
    broken.mode = 'drop-young-markers';
    const result = await fc.check(mvccProperty(async () => new MemoryEngine()), { numRuns: 1000, seed: 12 });
    expect(result.failed).toBe(true);
  });

  it('passes with the real collector (the switch above is the only difference)', async () => {
    broken.mode = 'none';
    const result = await fc.check(mvccProperty(async () => new MemoryEngine()), { numRuns: 200, seed: 13 });
    expect(result.failed).toBe(false);
  });
});
