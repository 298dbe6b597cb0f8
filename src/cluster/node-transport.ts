/**
 * What a node needs of its transport to its peers: Raft messages (fire and forget, in order per
 * link), unary cluster calls, forwarded-operation streams and snapshot streams. GrpcTransport is
 * the one production implementation; the simulator (test/sim-node) wires the same node to a
 * deterministic in-process network instead.
 */
import type { raftq } from '../gen/proto.js';
import type { RaftMessage } from '../raft/types.js';
import type { clusterMethods } from './grpc-services.js';
import type { GrpcTransportOptions } from './grpc-transport.js';
import type { OpClientCall } from './op-stream-client.js';

type ClusterMethods = typeof clusterMethods;
export type ClusterMethodName = keyof ClusterMethods;
export type ClusterRequestOf<K extends ClusterMethodName> = Parameters<ClusterMethods[K]['requestSerialize']>[0];
export type ClusterResponseOf<K extends ClusterMethodName> = ReturnType<ClusterMethods[K]['responseDeserialize']>;

export interface NodeTransport {
  /** The port it listens on (0 where nothing listens). */
  readonly port: number;
  /** Adds the peer, or moves it when its address changed. */
  setPeer(peerId: string, address: string): void;
  removePeer(peerId: string): void;
  peerAddress(peerId: string): string | undefined;
  peerIds(): string[];
  /** Queues a Raft message on its link; false when there is no such peer or its queue is full. */
  sendRaft(message: RaftMessage): boolean;
  linkStats(): Record<string, { queued: number; sent: number; dropped: number; reconnects: number }>;
  call<K extends ClusterMethodName>(
    peerId: string,
    name: K,
    request: ClusterRequestOf<K>,
    timeoutMs: number,
  ): Promise<ClusterResponseOf<K>>;
  /** Opens a stream of forwarded operations to the peer, or null when it is not known. */
  openOpStream(peerId: string): OpClientCall | null;
  /** Streams a snapshot's chunks to the peer; resolves with its acknowledgement. */
  sendSnapshot(
    peerId: string,
    chunks: AsyncIterable<raftq.raft.SnapshotChunk.$Properties>,
    timeoutMs: number,
  ): Promise<raftq.raft.SnapshotAck>;
  close(): Promise<void>;
}

/** Starts a node's transport: GrpcTransport.start in production. */
export type NodeTransportFactory = (options: GrpcTransportOptions) => Promise<NodeTransport>;
