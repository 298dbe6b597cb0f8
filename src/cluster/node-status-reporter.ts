/**
 * What a node says about itself: its role as /status names it, the /status document (docs/OPERATIONS.md,
 * "Admin endpoints", plus log bounds, clock offsets and the log-tail repair state) and the gauges of /metrics.
 */
import type { RawNode } from '../raft/raw-node.js';
import type { ClusterClock } from './cluster-clock.js';
import type { NodeTransport } from './node-transport.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeConfig } from './node-config.js';
import type { NodeMetrics } from './node-metrics.js';
import type { StateStore } from './state-store.js';
import type { TailRepairGuard, TailRepairState } from './tail-repair-guard.js';

export type NodeRole = 'leader' | 'follower' | 'candidate' | 'learner';

export interface MemberStatus {
  readonly id: string;
  readonly address: string;
  readonly role: 'voter' | 'learner';
}

export interface NodeStatus {
  readonly id: string;
  readonly role: NodeRole;
  readonly term: number;
  readonly leader: string;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly members: MemberStatus[];
  readonly stateDigest: string;
  readonly lastIndex: number;
  readonly firstIndex: number;
  readonly snapshotIndex: number;
  readonly clockOffsetMs: number;
  readonly artificialClockOffsetMs: number;
  /** What this node can do beyond the basics; the fault-injection harness reads it. */
  readonly capabilities: readonly string[];
  /** Whether the log was found damaged at start-up and, if so, whether it holds its tail again. */
  readonly logTailRepair: {
    readonly state: TailRepairState;
    readonly keptLastIndex: number | null;
    readonly leaderCommitIndexSeen: number;
  };
}

/** Capabilities reported in /status. */
export const nodeCapabilities: readonly string[] = ['log-tail-repair'];

export interface NodeStatusReporterParts {
  readonly config: NodeConfig;
  readonly metrics: NodeMetrics;
  readonly clock: ClusterClock;
  readonly raw: RawNode;
  readonly logStore: LevelLogStore;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly transport: () => NodeTransport;
  readonly tailRepairGuard: TailRepairGuard;
}

export class NodeStatusReporter {
  constructor(private readonly parts: NodeStatusReporterParts) {}

  role(): NodeRole {
    const status = this.parts.raw.status();
    if (status.isLearner) return 'learner';
    if (status.role === 'precandidate') return 'candidate';
    return status.role;
  }

  async status(): Promise<NodeStatus> {
    const { config, logStore, clock, tailRepairGuard } = this.parts;
    const status = this.parts.raw.status();
    const membership = logStore.currentMembership();
    const digest = await this.parts.state().digest();
    const members: MemberStatus[] = [
      ...membership.confState.voters.map((id) => ({
        id,
        address: config.peers[id] ?? membership.addresses[id] ?? '',
        role: 'voter' as const,
      })),
      ...membership.confState.learners.map((id) => ({
        id,
        address: config.peers[id] ?? membership.addresses[id] ?? '',
        role: 'learner' as const,
      })),
    ];
    return {
      id: config.id,
      role: this.role(),
      term: status.term,
      leader: status.leader,
      commitIndex: status.commit,
      appliedIndex: digest.appliedIndex,
      members,
      stateDigest: digest.digest,
      lastIndex: logStore.lastIndex(),
      firstIndex: logStore.firstIndex(),
      snapshotIndex: logStore.snapshot().meta.index,
      clockOffsetMs: clock.leaderOffsetMs(),
      artificialClockOffsetMs: clock.artificialOffset(),
      capabilities: nodeCapabilities,
      logTailRepair: {
        state: tailRepairGuard.state,
        keptLastIndex: logStore.tailRepair?.keptLastIndex ?? null,
        leaderCommitIndexSeen: tailRepairGuard.leaderCommitIndexSeen,
      },
    };
  }

  /** Sets the /metrics gauges; after every turn of the Ready loop. */
  updateGauges(): void {
    const { metrics, logStore, clock } = this.parts;
    const status = this.parts.raw.status();
    metrics.term.set(status.term);
    metrics.commitIndex.set(status.commit);
    metrics.appliedIndex.set(this.parts.state().appliedIndex);
    metrics.lastIndex.set(logStore.lastIndex());
    metrics.logBytes.set(logStore.logBytes());
    metrics.setRole(this.role());
    metrics.clockOffsetSeconds.set((clock.leaderOffsetMs() + clock.artificialOffset()) / 1000);
    for (const [peer, stats] of Object.entries(this.parts.transport().linkStats()))
      metrics.noteDroppedRaftMessages(peer, stats.dropped);
  }
}
