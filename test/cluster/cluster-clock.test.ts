import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { ClusterClock } from '../../src/cluster/cluster-clock.js';

describe('ClusterClock', () => {
  it('follows the leader clock, trusting the sample with the shortest round trip', () => {
    const wall = new ManualClock(1_000_000);
    const clock = new ClusterClock(wall, { monotonicMs: () => wall.nowMs() });
    // Leader is 500 ms ahead. A slow sample (100 ms round trip) is off by up to 50 ms; a fast one is exact.
    clock.recordSample({ sentAtMs: 1_000_000, receivedAtMs: 1_000_100, leaderNowMs: 1_000_590 });
    clock.recordSample({ sentAtMs: 1_000_200, receivedAtMs: 1_000_202, leaderNowMs: 1_000_701 });
    expect(clock.leaderOffsetMs()).toBe(500);
    wall.advanceMs(1_000);
    expect(clock.nowMs()).toBe(1_001_500);
  });

  it('never reads lower than before, unless an artificial offset is injected', () => {
    const wall = new ManualClock(10_000);
    const clock = new ClusterClock(wall, { monotonicMs: () => wall.nowMs() });
    clock.recordSample({ sentAtMs: 10_000, receivedAtMs: 10_000, leaderNowMs: 12_000 });
    expect(clock.nowMs()).toBe(12_000);
    clock.becomeReference();
    expect(clock.nowMs()).toBe(12_000);
    clock.setArtificialOffsetMs(-5_000);
    expect(clock.nowMs()).toBe(5_000);
    expect(clock.wallMs()).toBe(10_000);
  });
});
