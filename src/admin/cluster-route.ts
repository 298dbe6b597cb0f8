/**
 * GET /cluster (docs/OPERATIONS.md, "The console"): every member of the configuration as it answers
 * the cluster Status call — role, term, leader, commit and applied index — with its lag behind the
 * highest commit index seen and a health word, so that one admin port shows the whole cluster.
 * /status stays this node's own document; this call asks the peers over the cluster port.
 */
import type { ClusterNode } from '../cluster/cluster-node.js';

/** How long a peer's Status answer may take before the member shows as unreachable. */
export const peerStatusTimeoutMs = 1_000;
/** Applied entries behind the highest commit index seen past which a member shows as lagging. */
export const laggingEntriesMin = 1_000;

export type MemberHealth = 'ok' | 'lagging' | 'no leader' | 'unreachable';

export interface ClusterMember {
  readonly id: string;
  readonly address: string;
  readonly membership: 'voter' | 'learner';
  /** True for the node that answered this call. */
  readonly isSelf: boolean;
  readonly health: MemberHealth;
  /** Absent when the member did not answer. */
  readonly role?: string;
  readonly term?: number;
  readonly leader?: string;
  readonly commitIndex?: number;
  readonly appliedIndex?: number;
  /** Highest commit index among the answers minus this member's applied index. */
  readonly lagEntries?: number;
  /** The leader's replication progress for this member, when the answering node is the leader. */
  readonly matchIndex?: number;
  /** Why the member did not answer. */
  readonly error?: string;
}

export interface ClusterView {
  readonly id: string;
  readonly leader: string;
  readonly term: number;
  readonly members: ClusterMember[];
}

interface MemberAnswer {
  readonly role: string;
  readonly term: number;
  readonly leader: string;
  readonly commitIndex: number;
  readonly appliedIndex: number;
}

export async function clusterView(node: ClusterNode): Promise<ClusterView> {
  const status = await node.status();
  const raft = node.raftStatus();
  const answers = await Promise.all(
    status.members.map(async (member): Promise<MemberAnswer | Error> => {
      if (member.id === node.id) return { role: status.role, term: status.term, leader: status.leader, commitIndex: status.commitIndex, appliedIndex: status.appliedIndex };
      try {
        const answer = await node.callPeer(member.id, 'status', { groupId: node.config.groupId }, peerStatusTimeoutMs);
        // 64-bit fields may arrive as Long objects (scripts/gen-proto.mjs); the values are safe integers.
        return { role: answer.role, term: Number(answer.term), leader: answer.leader, commitIndex: Number(answer.commitIndex), appliedIndex: Number(answer.appliedIndex) };
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  const highestCommit = Math.max(0, ...answers.map((answer) => (answer instanceof Error ? 0 : answer.commitIndex)));
  const members = status.members.map((member, i): ClusterMember => {
    const answer = answers[i] as MemberAnswer | Error;
    const base = { id: member.id, address: member.address, membership: member.role, isSelf: member.id === node.id };
    if (answer instanceof Error) return { ...base, health: 'unreachable', error: answer.message };
    const lagEntries = Math.max(0, highestCommit - answer.appliedIndex);
    const health: MemberHealth = answer.leader === '' ? 'no leader' : lagEntries > laggingEntriesMin ? 'lagging' : 'ok';
    const progress = raft.progress.get(member.id);
    return { ...base, health, ...answer, lagEntries, ...(progress === undefined ? {} : { matchIndex: progress.match }) };
  });
  return { id: node.id, leader: status.leader, term: status.term, members };
}
