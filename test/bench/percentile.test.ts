import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/stats/percentile.js';

describe('a percentile by rank', () => {
  it('is the smallest value with at least that share of the sample at or below it', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([1, 2, 3, 4], 0.75)).toBe(3);
    expect(percentile([7], 0)).toBe(7);
  });

  it('is no number for an empty sample', () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});
