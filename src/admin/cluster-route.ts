/**
 * GET /cluster (docs/OPERATIONS.md, "The console"): every member of the configuration as it answers
 * the cluster Status call — role, term, leader, commit and applied index — with its lag behind the
 * highest commit index seen and a health word, so that one admin port shows the whole cluster.
 * /status stays this node's own document; this call asks the peers over the cluster port.
 * Replication progress and last contact are the leader's (`raftq status --cluster`): only the
 * leader tracks them, so a follower answering this call takes them from the leader's Status answer.
 */
import type { ClusterNode } from '../cluster/cluster-node.js';
import type { PeerProgressView } from '../cluster/leader-progress.js';

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
  /** The leader's replication progress for this member; absent when no leader answered. */
  readonly matchIndex?: number;
  /**
   * Milliseconds since the leader last had an answer from this member (0 for the leader itself);
   * null when the leader has not heard from it; absent when no leader answered.
   */
  readonly lastContactMs?: number | null;
  /** Why the member did not answer. */
  readonly error?: string;
}

export interface ClusterView {
  readonly id: string;
  readonly leader: string;
  readonly term: number;
  /** The leader whose view gave matchIndex and lastContactMs; '' when no leader answered. */
  readonly progressFrom: string;
  readonly members: ClusterMember[];
}

interface MemberAnswer {
  readonly role: string;
  readonly term: number;
  readonly leader: string;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  /** The member's replication progress view (empty unless it leads). */
  readonly peers: readonly PeerProgressView[];
}

export async function clusterView(node: ClusterNode): Promise<ClusterView> {
  const status = await node.status();
  const answers = await Promise.all(
    status.members.map(async (member): Promise<MemberAnswer | Error> => {
      if (member.id === node.id) {
        return {
          role: status.role,
          term: status.term,
          leader: status.leader,
          commitIndex: status.commitIndex,
          appliedIndex: status.appliedIndex,
          peers: node.leaderProgress(),
        };
      }
      try {
        const answer = await node.callPeer(member.id, 'status', { groupId: node.config.groupId }, peerStatusTimeoutMs);
        // 64-bit fields may arrive as Long objects (scripts/gen-proto.mjs); the values are safe integers.
        const peers = (answer.peers ?? []).map((peer) => {
          const lastContactMs = Number(peer.lastContactMs);
          return {
            id: peer.id ?? '',
            matchIndex: Number(peer.matchIndex),
            lastContactMs: lastContactMs < 0 ? null : lastContactMs,
          };
        });
        return {
          role: answer.role,
          term: Number(answer.term),
          leader: answer.leader,
          commitIndex: Number(answer.commitIndex),
          appliedIndex: Number(answer.appliedIndex),
          peers,
        };
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  const highestCommit = Math.max(0, ...answers.map((answer) => (answer instanceof Error ? 0 : answer.commitIndex)));
  // The leader's view: the answer of the member that says it leads, at the highest term seen.
  let leaderIndex = -1;
  answers.forEach((answer, i) => {
    if (answer instanceof Error || answer.role !== 'leader') return;
    const best = leaderIndex < 0 ? undefined : (answers[leaderIndex] as MemberAnswer);
    if (best === undefined || answer.term > best.term) leaderIndex = i;
  });
  const leaderAnswer = leaderIndex < 0 ? undefined : (answers[leaderIndex] as MemberAnswer);
  const leaderView = new Map((leaderAnswer?.peers ?? []).map((peer) => [peer.id, peer]));
  const members = status.members.map((member, i): ClusterMember => {
    const answer = answers[i] as MemberAnswer | Error;
    const progress = leaderView.get(member.id);
    // A member that does not answer this call may still answer the leader, and the leader says when it last did.
    const leaderSees =
      progress === undefined ? {} : { matchIndex: progress.matchIndex, lastContactMs: progress.lastContactMs };
    const base = { id: member.id, address: member.address, membership: member.role, isSelf: member.id === node.id };
    if (answer instanceof Error) return { ...base, health: 'unreachable', error: answer.message, ...leaderSees };
    const lagEntries = Math.max(0, highestCommit - answer.appliedIndex);
    const health: MemberHealth = answer.leader === '' ? 'no leader' : lagEntries > laggingEntriesMin ? 'lagging' : 'ok';
    const { role, term, leader, commitIndex, appliedIndex } = answer;
    return { ...base, health, role, term, leader, commitIndex, appliedIndex, lagEntries, ...leaderSees };
  });
  return {
    id: node.id,
    leader: status.leader,
    term: status.term,
    progressFrom: leaderIndex < 0 ? '' : (status.members[leaderIndex]?.id ?? ''),
    members,
  };
}
