/**
 * What a node answers to its peers: Raft messages and snapshots into the core, forwarded
 * operations and transactions, ReadIndex for followers, membership calls, status and clock samples.
 */
import { raftLimits } from '../base/limits.js';
import type { RaftStatus } from '../raft/raw-node.js';
import { MessageType, type RaftMessage } from '../raft/types.js';
import type { TransportHandlers } from './grpc-transport.js';
import type { PeerProgressView } from './leader-progress.js';
import type { MembershipAdmin } from './membership-admin.js';
import type { NodeRole } from './node-status-reporter.js';

/** What the handlers read of their node and hand its calls to. */
export interface NodeTransportView {
  readonly nodeId: string;
  readonly isLeader: () => boolean;
  /** The leader this node believes in now, or ''. */
  readonly leaderId: () => string;
  readonly role: () => NodeRole;
  readonly raftStatus: () => RaftStatus;
  readonly appliedIndex: () => number;
  /** The cluster clock. */
  readonly nowMs: () => number;
  readonly leaderProgress: () => PeerProgressView[];
  readonly membershipAdmin: Pick<MembershipAdmin, 'serve' | 'addMember' | 'removeMember' | 'transferLeader'>;
  /** Runs a follower's stream of forwarded operations (op-stream-server.ts). */
  readonly serveOpStream: TransportHandlers['onOpStream'];
  /** The leader's side of a follower's forwarded transactions (txn-committer.ts). */
  readonly serveForwardedTxns: TransportHandlers['forwardTxns'];
}

/** The view, and the paths by which peers' messages reach the node's core. */
export interface NodeTransportHandlerParts extends NodeTransportView {
  /** A Raft message from a peer, for the core (unless the loop stopped or tail repair holds it back), with the address the peer announced. */
  readonly stepFromPeer: (message: RaftMessage, fromAddress: string) => void;
  readonly reportUnreachable: (peerId: string) => void;
  readonly receiveSnapshot: TransportHandlers['onSnapshot'];
  /** A ReadIndex round on this node, which must lead. */
  readonly localReadIndex: (timeoutMs: number) => Promise<number>;
}

export function nodeTransportHandlers(parts: NodeTransportHandlerParts): TransportHandlers {
  const { membershipAdmin } = parts;
  return {
    onRaftMessage: (message, _fromId, fromAddress) => {
      if (message.type === MessageType.Snap) return; // snapshots arrive only through SendSnapshot
      parts.stepFromPeer(message, fromAddress);
    },
    onSnapshot: parts.receiveSnapshot,
    onPeerUnreachable: parts.reportUnreachable,
    onOpStream: parts.serveOpStream,
    forwardTxns: parts.serveForwardedTxns,
    readIndex: async () => {
      if (!parts.isLeader()) return { isLeader: false, readIndex: 0, leaderHint: parts.leaderId() };
      try {
        return {
          isLeader: true,
          readIndex: await parts.localReadIndex(raftLimits.readIndexTimeoutMs.value),
          leaderHint: parts.nodeId,
        };
      } catch {
        return { isLeader: false, readIndex: 0, leaderHint: parts.leaderId() };
      }
    },
    addMember: (request) => membershipAdmin.serve(() => membershipAdmin.addMember(request.nodeId, request.raftAddress)),
    removeMember: (request) => membershipAdmin.serve(() => membershipAdmin.removeMember(request.nodeId)),
    transferLeader: (request) => membershipAdmin.serve(() => membershipAdmin.transferLeader(request.nodeId)),
    status: async () => {
      const status = parts.raftStatus();
      return {
        id: parts.nodeId,
        role: parts.role(),
        term: status.term,
        leader: status.leader,
        commitIndex: status.commit,
        appliedIndex: parts.appliedIndex(),
        peers: parts
          .leaderProgress()
          .map((peer) => ({ id: peer.id, matchIndex: peer.matchIndex, lastContactMs: peer.lastContactMs ?? -1 })),
      };
    },
    clockSample: async () => ({ nowMs: parts.nowMs(), isLeader: parts.isLeader() }),
  };
}
