import { describe, expect, it } from 'vitest';
import { runSeed } from './run-seeds.js';

describe('simulator determinism', () => {
  for (const seed of [2, 3, 5]) {
    it(`seed ${seed} replays the same trace, line for line and hash for hash`, () => {
      const first = runSeed(seed, { isKeepingTrace: true });
      const second = runSeed(seed, { isKeepingTrace: true });
      expect(first.events).toBeGreaterThan(1_000);
      expect(second.traceHash).toBe(first.traceHash);
      expect(second.traceLines).toEqual(first.traceLines);
    });
  }

  it('keeping the trace lines does not change the run', () => {
    expect(runSeed(4, { isKeepingTrace: false }).traceHash).toBe(runSeed(4, { isKeepingTrace: true }).traceHash);
  });

  it('different seeds give different runs', () => {
    const hashes = new Set([10, 11, 12, 13].map((seed) => runSeed(seed, { isKeepingTrace: false }).traceHash));
    expect(hashes.size).toBe(4);
  });
});
