/**
 * A follower's side of the cluster clock: every clockSampleIntervalMs it asks the leader for its
 * clock (ClockSample) and hands the answer, with the round trip around it, to the ClusterClock.
 */
import type { ClusterClock } from './cluster-clock.js';
import type { NodeTransport } from './node-transport.js';

export interface LeaderClockSamplerParts {
  readonly nodeId: string;
  readonly groupId: number;
  readonly clock: ClusterClock;
  readonly transport: () => NodeTransport;
  /** The leader this node follows now, or ''. */
  readonly leaderId: () => string;
  readonly isStopping: () => boolean;
}

/** How long one sample may take; a slower answer says little about the offset anyway. */
const clockSampleTimeoutMs = 1_000;

export class LeaderClockSampler {
  constructor(private readonly parts: LeaderClockSamplerParts) {}

  async sample(): Promise<void> {
    const { clock, nodeId } = this.parts;
    const leader = this.parts.leaderId();
    if (leader === '' || leader === nodeId || this.parts.isStopping()) return;
    const sentAtMs = clock.monotonicMs();
    try {
      const answer = await this.parts
        .transport()
        .call(leader, 'clockSample', { groupId: this.parts.groupId, from: nodeId }, clockSampleTimeoutMs);
      if (answer.isLeader && this.parts.leaderId() === leader)
        clock.recordSample({ sentAtMs, receivedAtMs: clock.monotonicMs(), leaderNowMs: answer.nowMs });
    } catch {
      // The leader is unreachable; the next sample will tell.
    }
  }
}
