import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { ClusterClock } from '../../src/cluster/cluster-clock.js';
import { LeaderClockSampler } from '../../src/cluster/leader-clock-sampler.js';
import type { NodeTransport } from '../../src/cluster/node-transport.js';

/**
 * A follower whose wall clock is stepped back and corrected (NTP), sampling a leader whose clock
 * is right. Real time is `trueTime`; the follower's wall clock is it plus `wallStepMs`.
 */
function steppedFollower() {
  const trueTime = new ManualClock(1_000_000);
  let wallStepMs = 0;
  const wall = { nowMs: () => trueTime.nowMs() + wallStepMs };
  const clock = new ClusterClock(wall, { monotonicMs: () => trueTime.nowMs() });
  let roundTripMs = 0;
  const transport = {
    call: async () => {
      trueTime.advanceMs(roundTripMs / 2);
      const nowMs = trueTime.nowMs();
      trueTime.advanceMs(roundTripMs / 2);
      return { nowMs, isLeader: true };
    },
  } as unknown as NodeTransport;
  const sampler = new LeaderClockSampler({
    nodeId: 'n2',
    groupId: 1,
    clock,
    transport: () => transport,
    leaderId: () => 'n1',
    isStopping: () => false,
  });
  return {
    trueTime,
    clock,
    sampler,
    stepWallMs: (ms: number) => (wallStepMs = ms),
    roundTripMs: (ms: number) => (roundTripMs = ms),
  };
}

describe('ClusterClock across a step of the wall clock', () => {
  it("a follower's wall clock stepped back and corrected leaves no offset behind, led or following", async () => {
    const f = steppedFollower();
    f.roundTripMs(30);
    await f.sampler.sample();
    f.stepWallMs(-10_400);
    f.roundTripMs(0);
    // The sample taken while the wall clock was behind has the shortest round trip of the window.
    await f.sampler.sample();
    expect(f.clock.nowMs()).toBe(f.trueTime.nowMs());
    f.trueTime.advanceMs(4_000);
    f.stepWallMs(0);
    f.roundTripMs(20);
    for (let i = 0; i < 3; i++) {
      f.trueTime.advanceMs(1_000);
      await f.sampler.sample();
      expect(Math.abs(f.clock.nowMs() - f.trueTime.nowMs())).toBeLessThanOrEqual(10);
    }
    // Leading, it stamps with its own (corrected) wall clock, not the step size ahead.
    f.clock.becomeReference();
    expect(f.clock.nowMs() - f.trueTime.nowMs()).toBeLessThanOrEqual(10);
  });

  it('follows the leader while its own wall clock is stepped (the step does not show)', async () => {
    const f = steppedFollower();
    f.roundTripMs(4);
    await f.sampler.sample();
    f.stepWallMs(+6_000);
    f.trueTime.advanceMs(1_000);
    expect(f.clock.nowMs()).toBe(f.trueTime.nowMs());
    expect(f.clock.leaderOffsetMs()).toBe(-6_000);
    f.stepWallMs(0);
    f.trueTime.advanceMs(1_000);
    expect(f.clock.nowMs()).toBe(f.trueTime.nowMs());
  });
});
