/**
 * The leader's view of its members, for `raftq status --cluster` (GET /cluster): how far each has
 * acknowledged the log and how long ago it last answered an append or heartbeat. Only the leader
 * tracks either, so any other node reports nothing and the admin view asks the leader for it
 * (in its Status answer).
 */
import type { RaftStatus } from '../raft/raw-node.js';

export interface PeerProgressView {
  readonly id: string;
  readonly matchIndex: number;
  /** 0 for the leader itself; null when the leader has not heard from the member. */
  readonly lastContactMs: number | null;
}

/** What the view is built from. */
export interface LeaderProgressParts {
  readonly nodeId: string;
  readonly isLeader: () => boolean;
  readonly raftStatus: () => RaftStatus;
  /** How long ago `peerId` last answered this node's appends or heartbeats; null: never. */
  readonly peerLastHeardAgoMs: (peerId: string) => number | null;
}

export function leaderProgress(parts: LeaderProgressParts): PeerProgressView[] {
  if (!parts.isLeader()) return [];
  return [...parts.raftStatus().progress].map(([id, progress]) => ({
    id,
    matchIndex: progress.match,
    lastContactMs: id === parts.nodeId ? 0 : parts.peerLastHeardAgoMs(id),
  }));
}
