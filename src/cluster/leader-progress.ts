/**
 * The leader's view of its members, for `raftq status --cluster` (GET /cluster): how far each has
 * acknowledged the log and how long ago it last answered an append or heartbeat. Only the leader
 * tracks either, so any other node reports nothing and the admin view asks the leader for it
 * (in its Status answer).
 */
import type { ClusterNode } from './cluster-node.js';

export interface PeerProgressView {
  readonly id: string;
  readonly matchIndex: number;
  /** 0 for the leader itself; null when the leader has not heard from the member. */
  readonly lastContactMs: number | null;
}

export function leaderProgress(node: ClusterNode): PeerProgressView[] {
  if (!node.isLeader()) return [];
  return [...node.raftStatus().progress].map(([id, progress]) => ({
    id,
    matchIndex: progress.match,
    lastContactMs: id === node.id ? 0 : node.membershipAdmin.peerLastHeardAgoMs(id),
  }));
}
