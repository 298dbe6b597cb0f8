/**
 * The cluster clock (docs/architecture/cluster.md): this node's wall clock corrected by its offset to the leader's
 * clock, so that every node stamps transactions with nearly the same time. The offset is learned
 * from clock samples taken over the replication channel (a round trip to the leader; the leader's
 * answer is assumed to sit in the middle of it, and the sample with the shortest round trip of a
 * recent window wins, as NTP does).
 *
 * An artificial offset can be added for fault injection: it shifts this node's cluster clock only,
 * never the host clock, and it is not corrected away by the samples (it applies after them).
 */
import type { Clock } from '../base/clock.js';

export interface ClockSample {
  /** This node's wall clock when the request left. */
  readonly sentAtMs: number;
  /** This node's wall clock when the answer arrived. */
  readonly receivedAtMs: number;
  /** The leader's cluster clock when it answered. */
  readonly leaderNowMs: number;
}

const sampleWindowSize = 8;

export class ClusterClock implements Clock {
  private offsetToLeaderMs = 0;
  private artificialOffsetMs = 0;
  private samples: { roundTripMs: number; offsetMs: number }[] = [];
  /** The cluster clock never reads lower than it did: a new leader's slower clock freezes it instead. */
  private floorMs = 0;

  constructor(private readonly wallClock: Clock) {}

  nowMs(): number {
    const candidateMs = this.wallClock.nowMs() + this.offsetToLeaderMs + this.artificialOffsetMs;
    if (candidateMs > this.floorMs) this.floorMs = candidateMs;
    return this.floorMs;
  }

  /** The host's wall clock, for measuring round trips (never corrected). */
  wallMs(): number {
    return this.wallClock.nowMs();
  }

  /** The offset learned from the leader, in ms (0 on the leader itself). */
  leaderOffsetMs(): number {
    return this.offsetToLeaderMs;
  }

  artificialOffset(): number {
    return this.artificialOffsetMs;
  }

  /** Fault injection: shift this node's cluster clock by `offsetMs` (replaces any earlier shift). */
  setArtificialOffsetMs(offsetMs: number): void {
    this.artificialOffsetMs = offsetMs;
    // An injected step backwards must show, so the monotonic floor restarts from the new reading.
    this.floorMs = 0;
  }

  /** This node leads: its own clock is the cluster's. */
  becomeReference(): void {
    this.offsetToLeaderMs = 0;
    this.samples = [];
  }

  recordSample(sample: ClockSample): void {
    const roundTripMs = sample.receivedAtMs - sample.sentAtMs;
    if (roundTripMs < 0) return;
    const midpointMs = sample.sentAtMs + roundTripMs / 2;
    this.samples.push({ roundTripMs, offsetMs: sample.leaderNowMs - midpointMs });
    if (this.samples.length > sampleWindowSize) this.samples.shift();
    let best = this.samples[0];
    for (const candidate of this.samples)
      if (best === undefined || candidate.roundTripMs < best.roundTripMs) best = candidate;
    if (best !== undefined) this.offsetToLeaderMs = Math.round(best.offsetMs);
  }

  /** Forget samples taken from a leader that is no longer the leader. */
  forgetSamples(): void {
    this.samples = [];
  }
}
