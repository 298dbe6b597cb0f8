import { InvariantViolationError } from './invariants/invariant-violation-error.js';
import { NetworkPartition } from './network-partition.js';
import type { SimCluster } from './sim-cluster.js';
import { reliableNetwork } from './sim-network.js';
import type { SimNode } from './sim-node.js';

/** Events one drain may run before the next tick: a guard against a message storm that never settles. */
const drainEventsMax = 20_000;

interface Settling {
  readonly leader: SimNode;
  readonly members: readonly SimNode[];
}

/**
 * Heal everything (partitions, crashed nodes, a lossy network), stop nodes whose removal is
 * committed, then require within `livenessTicksMax` ticks: one leader that every live member
 * follows, fresh proposals applied on every live member, and every acknowledged value too.
 * Between ticks the cluster drains: every message is delivered and every Ready handled.
 */
export function healAndCheckLiveness(cluster: SimCluster): void {
  const { config } = cluster;
  cluster.isHealing = true;
  cluster.network.partition = NetworkPartition.none();
  cluster.network.faults = reliableNetwork;
  cluster.record('heal all');
  cluster.resumeAll();
  for (const node of cluster.liveNodes()) {
    if (cluster.removedIds.has(node.id)) {
      cluster.decommission(node);
      cluster.record(`stop ${node.id} (removed)`);
    } else if (!node.isRunning) {
      cluster.restart(node);
    }
    cluster.afterEvent();
  }
  const probes = cluster.watchedValues;
  probes.clear();
  const startTick = cluster.ticks;
  let probeTick = -Infinity;
  for (;;) {
    drain(cluster);
    const settling = liveMembersFollowingOneLeader(cluster);
    if (settling !== null && isSettled(cluster, settling)) break;
    if (cluster.ticks - startTick >= config.livenessTicksMax) {
      throw new InvariantViolationError(
        'liveness',
        `${describeUnsettled(cluster, settling)} ${config.livenessTicksMax} ticks after healing`,
      );
    }
    const isProbeDue = cluster.ticks - probeTick >= 2 * config.raft.electionTimeoutTicks;
    if (settling !== null && isProbeDue && ackedProbeCount(cluster) < config.livenessProposals) {
      for (let i = 0; i < config.livenessProposals; i++)
        probes.set(cluster.propose(settling.leader, { label: 'liveness' }), null);
      probeTick = cluster.ticks;
    }
    cluster.tickAll();
    cluster.afterEvent();
  }
  cluster.isHealing = false;
  cluster.record(
    `live: leader and ${config.livenessProposals} fresh proposals applied everywhere after ${cluster.ticks - startTick} ticks`,
  );
}

function drain(cluster: SimCluster): void {
  for (let i = 0; i < drainEventsMax; i++) {
    if (cluster.network.deliverableCount > 0) cluster.deliverNext();
    else {
      const node = cluster.liveNodes().find((n) => n.hasReady());
      if (node === undefined) return;
      cluster.readyEvent(node);
    }
    cluster.afterEvent();
  }
}

function ackedProbeCount(cluster: SimCluster): number {
  let count = 0;
  for (const index of cluster.watchedValues.values()) if (index !== null) count += 1;
  return count;
}

/** The leader and the live members of its configuration, if they all follow it. */
function liveMembersFollowingOneLeader(cluster: SimCluster): Settling | null {
  const leader = cluster.findLeader();
  if (leader === null) return null;
  const { confState } = leader.status();
  const members: SimNode[] = [];
  for (const id of [...confState.voters, ...confState.learners]) {
    const node = cluster.nodes.get(id);
    if (node === undefined || node.isDecommissioned) continue;
    if (!node.isRunning || node.status().leader !== leader.id) return null;
    members.push(node);
  }
  return { leader, members };
}

function isSettled(cluster: SimCluster, settling: Settling): boolean {
  if (ackedProbeCount(cluster) < cluster.config.livenessProposals) return false;
  let required = cluster.monitor.durability.ackedIndexMax;
  for (const index of cluster.watchedValues.values()) if (index !== null) required = Math.max(required, index);
  if (!settling.members.every((n) => n.stateMachine.appliedIndex >= required)) return false;
  for (const node of settling.members) cluster.monitor.durability.checkMemberApplied(node.id, node.stateMachine);
  return true;
}

function describeUnsettled(cluster: SimCluster, settling: Settling | null): string {
  if (settling === null) {
    const views = cluster.liveNodes().map((n) => {
      if (!n.isRunning) return `${n.id}:down`;
      const s = n.status();
      return `${n.id}:${s.role}/t${s.term}/leader=${s.leader || '-'}/voters=${s.confState.voters.join(',')}`;
    });
    return `no leader that every live member follows (${views.join(' ')})`;
  }
  const applied = settling.members.map((n) => `${n.id}@${n.stateMachine.appliedIndex}`).join(' ');
  return `leader ${settling.leader.id} but only ${ackedProbeCount(cluster)}/${cluster.config.livenessProposals} fresh proposals acknowledged, members applied ${applied}`;
}
