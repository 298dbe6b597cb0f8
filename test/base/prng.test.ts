import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';

describe('SeededPrng', () => {
  it('replays the same stream for the same seed', () => {
    const a = new SeededPrng(42);
    const b = new SeededPrng(42);
    const drawsA = Array.from({ length: 100 }, () => a.nextU32());
    const drawsB = Array.from({ length: 100 }, () => b.nextU32());
    expect(drawsA).toEqual(drawsB);
  });

  it('gives different streams for neighbouring seeds', () => {
    const a = new SeededPrng(1);
    const b = new SeededPrng(2);
    expect(Array.from({ length: 8 }, () => a.nextU32())).not.toEqual(Array.from({ length: 8 }, () => b.nextU32()));
  });

  it('intBelow stays in range and covers it', () => {
    const prng = new SeededPrng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = prng.intBelow(10);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(10);
      seen.add(v);
    }
    expect(seen.size).toBe(10);
  });

  it('nextFloat stays in [0, 1)', () => {
    const prng = new SeededPrng(9);
    for (let i = 0; i < 1000; i++) {
      const f = prng.nextFloat();
      expect(f >= 0 && f < 1).toBe(true);
    }
  });
});
