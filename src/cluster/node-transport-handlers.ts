/**
 * What a node answers to its peers: Raft messages and snapshots into the core, forwarded
 * operations and transactions, ReadIndex for followers, membership calls, status and clock samples.
 */
import { raftLimits } from '../base/limits.js';
import { MessageType, type RaftMessage } from '../raft/types.js';
import type { ClusterNode } from './cluster-node.js';
import type { TransportHandlers } from './grpc-transport.js';
import { leaderProgress } from './leader-progress.js';

export interface NodeTransportHandlerParts {
  /** A Raft message from a peer, for the core (unless the loop stopped or tail repair holds it back). */
  readonly stepFromPeer: (message: RaftMessage) => void;
  readonly reportUnreachable: (peerId: string) => void;
  readonly receiveSnapshot: TransportHandlers['onSnapshot'];
  /** A ReadIndex round on this node, which must lead. */
  readonly localReadIndex: (timeoutMs: number) => Promise<number>;
}

export function nodeTransportHandlers(node: ClusterNode, parts: NodeTransportHandlerParts): TransportHandlers {
  const { membershipAdmin } = node;
  return {
    onRaftMessage: (message) => {
      if (message.type === MessageType.Snap) return; // snapshots arrive only through SendSnapshot
      parts.stepFromPeer(message);
    },
    onSnapshot: parts.receiveSnapshot,
    onPeerUnreachable: parts.reportUnreachable,
    onOpStream: (call) => node.opServer.serve(call),
    forwardTxns: (request) => node.committer.serveForwarded(request),
    readIndex: async () => {
      if (!node.isLeader()) return { isLeader: false, readIndex: 0, leaderHint: node.leaderId() };
      try {
        return { isLeader: true, readIndex: await parts.localReadIndex(raftLimits.readIndexTimeoutMs.value), leaderHint: node.id };
      } catch {
        return { isLeader: false, readIndex: 0, leaderHint: node.leaderId() };
      }
    },
    addMember: (request) => membershipAdmin.serve(() => membershipAdmin.addMember(request.nodeId, request.raftAddress)),
    removeMember: (request) => membershipAdmin.serve(() => membershipAdmin.removeMember(request.nodeId)),
    transferLeader: (request) => membershipAdmin.serve(() => membershipAdmin.transferLeader(request.nodeId)),
    status: async () => {
      const status = node.raftStatus();
      return { id: node.id, role: node.role(), term: status.term, leader: status.leader, commitIndex: status.commit, appliedIndex: node.appliedIndex(), peers: leaderProgress(node).map((peer) => ({ id: peer.id, matchIndex: peer.matchIndex, lastContactMs: peer.lastContactMs ?? -1 })) };
    },
    clockSample: async () => ({ nowMs: node.nowMs(), isLeader: node.isLeader() }),
  };
}
