import { describe, expect, it } from 'vitest';
import { leaderRetryBackoffMs } from '../../src/cluster/leader-retry-backoff.js';

describe('leaderRetryBackoffMs', () => {
  it('doubles from 20 ms with each attempt and stays at 160 ms from the fourth retry on', () => {
    expect(Array.from({ length: 7 }, (_, attempt) => leaderRetryBackoffMs(attempt))).toEqual([
      20, 40, 80, 160, 160, 160, 160,
    ]);
  });

  it('stays bounded however many attempts failed', () => {
    expect(leaderRetryBackoffMs(10_000)).toBe(160);
  });
});
