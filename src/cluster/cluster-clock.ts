/**
 * The cluster clock (docs/architecture/cluster.md): on the leader, this node's wall clock; on a
 * follower, the leader's clock carried forward on this node's monotonic clock, so that every node
 * stamps transactions with nearly the same time. The offset is learned from clock samples taken
 * over the replication channel (a round trip to the leader; the leader's answer is assumed to sit
 * in the middle of it, and the sample with the shortest round trip of a recent window wins, as NTP
 * does).
 *
 * Samples are timed on the monotonic clock, not the wall clock: a sample relates the leader's clock
 * to this node's clock as it was when taken, and a step of the wall clock (NTP) would make every
 * sample of the window wrong by the step without making it any less the best. A node whose wall
 * clock was stepped back and corrected then read the step size ahead for as long as that sample
 * stayed in the window, and, once it led, stamped its entries that far ahead (the floor below kept
 * the reading): messages still held in the others' cluster time became visible again.
 *
 * An artificial offset can be added for fault injection: it shifts this node's cluster clock only,
 * never the host clock, and it is not corrected away by the samples (it applies after them).
 */
import type { Clock } from '../base/clock.js';

export interface ClockSample {
  /** This node's monotonic clock when the request left. */
  readonly sentAtMs: number;
  /** This node's monotonic clock when the answer arrived. */
  readonly receivedAtMs: number;
  /** The leader's cluster clock when it answered. */
  readonly leaderNowMs: number;
}

/** A clock that is never stepped (the Scheduler's). */
export interface MonotonicClock {
  monotonicMs(): number;
}

const sampleWindowSize = 8;

export class ClusterClock implements Clock {
  /** The leader's clock less this node's monotonic clock; undefined while leading or before any sample. */
  private leaderLessMonotonicMs: number | undefined = undefined;
  private artificialOffsetMs = 0;
  private samples: { roundTripMs: number; offsetMs: number }[] = [];
  /** The cluster clock never reads lower than it did: a new leader's slower clock freezes it instead. */
  private floorMs = 0;

  constructor(
    private readonly wallClock: Clock,
    private readonly monotonicClock: MonotonicClock,
  ) {}

  nowMs(): number {
    const candidateMs = this.uncorrectedNowMs() + this.artificialOffsetMs;
    if (candidateMs > this.floorMs) this.floorMs = candidateMs;
    return this.floorMs;
  }

  /** The host's wall clock (never corrected). */
  wallMs(): number {
    return this.wallClock.nowMs();
  }

  /** The host's monotonic clock, for timing clock samples. */
  monotonicMs(): number {
    return this.monotonicClock.monotonicMs();
  }

  /** The offset learned from the leader to this node's wall clock, in ms (0 on the leader itself). */
  leaderOffsetMs(): number {
    return this.uncorrectedNowMs() - this.wallClock.nowMs();
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
    this.leaderLessMonotonicMs = undefined;
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
    if (best !== undefined) this.leaderLessMonotonicMs = Math.round(best.offsetMs);
  }

  /** Forget samples taken from a leader that is no longer the leader. */
  forgetSamples(): void {
    this.samples = [];
  }

  private uncorrectedNowMs(): number {
    if (this.leaderLessMonotonicMs === undefined) return this.wallClock.nowMs();
    // Whole milliseconds, as the wall clock reads (performance.now() has fractions).
    return Math.floor(this.monotonicClock.monotonicMs()) + this.leaderLessMonotonicMs;
  }
}
