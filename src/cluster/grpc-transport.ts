/**
 * The node's gRPC endpoint and its links to peers. Inbound: Raft link streams, snapshot streams
 * and cluster calls, each checked for the cluster secret first. Outbound: per peer one channel,
 * one PeerLink for Raft messages and unary calls for the rest.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { raftq } from '../gen/proto.js';
import type { RaftMessage } from '../raft/types.js';
import { clusterMethods, opForwardingMethods, raftTransportMethods } from './grpc-services.js';
import type { NodeTransport } from './node-transport.js';
import type { OpClientCall } from './op-stream-client.js';
import type { OpServerCall } from './op-stream-server.js';
import { PeerLink } from './peer-link.js';
import { decodeRaftEnvelope, encodeRaftEnvelope } from './raft-codec.js';
import {
  callMetadata,
  channelCredentials,
  channelOptions,
  hasClusterSecret,
  senderIdOf,
  serverCredentials,
  serverOptions,
  type TransportSecurity,
} from './transport-security.js';

type ClusterMethods = typeof clusterMethods;
type RequestOf<K extends keyof ClusterMethods> = Parameters<ClusterMethods[K]['requestSerialize']>[0];
type DecodedRequestOf<K extends keyof ClusterMethods> = ReturnType<ClusterMethods[K]['requestDeserialize']>;
type ResponseOf<K extends keyof ClusterMethods> = ReturnType<ClusterMethods[K]['responseDeserialize']>;
type ResponsePropsOf<K extends keyof ClusterMethods> = Parameters<ClusterMethods[K]['responseSerialize']>[0];

export type ClusterCallHandlers = {
  [K in keyof ClusterMethods]: (request: DecodedRequestOf<K>, fromId: string) => Promise<ResponsePropsOf<K>>;
};

export interface TransportHandlers extends ClusterCallHandlers {
  /** `fromAddress`: the sender's Raft address as it announced it ('' when it announced none). */
  onRaftMessage(message: RaftMessage, fromId: string, fromAddress: string): void;
  onSnapshot(
    chunks: AsyncIterable<raftq.raft.SnapshotChunk>,
    fromId: string,
  ): Promise<raftq.raft.SnapshotAck.$Properties>;
  /** A follower's stream of forwarded operations (op-stream-server.ts). */
  onOpStream(call: OpServerCall, fromId: string): void;
  /** A link to `peerId` broke: Raft should stop pipelining to it until it answers again. */
  onPeerUnreachable(peerId: string): void;
}

export interface GrpcTransportOptions {
  readonly selfId: string;
  readonly groupId: number;
  /** host:port; port 0 picks a free one (see `port`). */
  readonly listenAddress: string;
  readonly security: TransportSecurity;
  readonly handlers: TransportHandlers;
  readonly logger: Logger;
  readonly jitter: () => number;
  /**
   * This node's Raft address as the cluster knows it, sent with every Raft message: a peer that
   * has not applied the conf change that added this node yet has no other way to answer it.
   * Absent (or ''): none is sent.
   */
  readonly announcedAddress?: () => string;
}

/** A cluster call failed before an answer arrived (peer down, deadline, refused). */
export class PeerCallError extends Error {
  constructor(
    readonly peerId: string,
    readonly method: string,
    readonly grpcCode: number | null,
    options?: { cause?: unknown },
  ) {
    super(`Call ${method} to ${peerId} failed${grpcCode === null ? '' : ` (gRPC status ${grpcCode})`}`, options);
    this.name = 'PeerCallError';
  }
}

interface Peer {
  readonly address: string;
  readonly client: grpc.Client;
  readonly link: PeerLink;
}

const refusalLogIntervalMs = 10_000;

export class GrpcTransport implements NodeTransport {
  private readonly peers = new Map<string, Peer>();
  private readonly lastRefusalLogMs = new Map<string, number>();
  private readonly server: grpc.Server;
  private boundPort = 0;

  private constructor(private readonly options: GrpcTransportOptions) {
    this.server = new grpc.Server(serverOptions);
    this.server.addService(raftTransportMethods, this.raftTransportImplementation());
    this.server.addService(clusterMethods, this.clusterImplementation());
    this.server.addService(opForwardingMethods, this.opForwardingImplementation());
  }

  static async start(options: GrpcTransportOptions): Promise<GrpcTransport> {
    const transport = new GrpcTransport(options);
    transport.boundPort = await new Promise<number>((resolve, reject) => {
      transport.server.bindAsync(options.listenAddress, serverCredentials(options.security), (error, port) =>
        error ? reject(error) : resolve(port),
      );
    });
    return transport;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Adds the peer, or moves it when its address changed. */
  setPeer(peerId: string, address: string): void {
    const existing = this.peers.get(peerId);
    if (existing !== undefined && existing.address === address) return;
    if (existing !== undefined) this.closePeer(peerId, existing);
    const client = new grpc.Client(address, channelCredentials(this.options.security), channelOptions);
    const link = new PeerLink({
      peerId,
      client,
      metadata: () => callMetadata(this.options.security, this.options.selfId),
      onBroken: (id) => this.options.handlers.onPeerUnreachable(id),
      jitter: this.options.jitter,
    });
    this.peers.set(peerId, { address, client, link });
  }

  removePeer(peerId: string): void {
    const peer = this.peers.get(peerId);
    if (peer !== undefined) this.closePeer(peerId, peer);
  }

  peerAddress(peerId: string): string | undefined {
    return this.peers.get(peerId)?.address;
  }

  peerIds(): string[] {
    return [...this.peers.keys()];
  }

  /** Queues a Raft message on its link; false when there is no such peer or its queue is full. */
  sendRaft(message: RaftMessage): boolean {
    const peer = this.peers.get(message.to);
    if (peer === undefined) return false;
    return peer.link.send(encodeRaftEnvelope(this.options.groupId, message, this.options.announcedAddress?.() ?? ''));
  }

  linkStats(): Record<string, { queued: number; sent: number; dropped: number; reconnects: number }> {
    const stats: Record<string, { queued: number; sent: number; dropped: number; reconnects: number }> = {};
    for (const [peerId, peer] of this.peers) {
      stats[peerId] = {
        queued: peer.link.queuedMessages(),
        sent: peer.link.stats.sentMessages,
        dropped: peer.link.stats.droppedMessages,
        reconnects: peer.link.stats.reconnects,
      };
    }
    return stats;
  }

  call<K extends keyof ClusterMethods>(
    peerId: string,
    name: K,
    request: RequestOf<K>,
    timeoutMs: number,
  ): Promise<ResponseOf<K>> {
    const peer = this.peers.get(peerId);
    if (peer === undefined)
      return Promise.reject(new PeerCallError(peerId, name, null, { cause: new Error('unknown peer') }));
    const method = clusterMethods[name] as unknown as grpc.MethodDefinition<RequestOf<K>, ResponseOf<K>>;
    return new Promise((resolve, reject) => {
      peer.client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        callMetadata(this.options.security, this.options.selfId),
        { deadline: Date.now() + timeoutMs },
        (error, response) => {
          if (error || response === undefined)
            reject(new PeerCallError(peerId, name, error?.code ?? null, { cause: error }));
          else resolve(response);
        },
      );
    });
  }

  /** Opens a stream of forwarded operations to the peer (op-stream-client.ts), or null when it is not known. */
  openOpStream(peerId: string): OpClientCall | null {
    const peer = this.peers.get(peerId);
    if (peer === undefined) return null;
    const method = opForwardingMethods.forwardOps;
    const call: OpClientCall = peer.client.makeBidiStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      callMetadata(this.options.security, this.options.selfId),
      {},
    );
    return call;
  }

  /** Streams a snapshot's chunks to the peer; resolves with its acknowledgement. */
  async sendSnapshot(
    peerId: string,
    chunks: AsyncIterable<raftq.raft.SnapshotChunk.$Properties>,
    timeoutMs: number,
  ): Promise<raftq.raft.SnapshotAck> {
    const peer = this.peers.get(peerId);
    if (peer === undefined) throw new PeerCallError(peerId, 'sendSnapshot', null, { cause: new Error('unknown peer') });
    const method = raftTransportMethods.sendSnapshot;
    let settle: { resolve(ack: raftq.raft.SnapshotAck): void; reject(error: Error): void } | null = null;
    const acknowledged = new Promise<raftq.raft.SnapshotAck>((resolve, reject) => (settle = { resolve, reject }));
    const call = peer.client.makeClientStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      callMetadata(this.options.security, this.options.selfId),
      { deadline: Date.now() + timeoutMs },
      (error, ack) => {
        if (error || ack === undefined)
          settle?.reject(new PeerCallError(peerId, 'sendSnapshot', error?.code ?? null, { cause: error }));
        else settle?.resolve(ack);
      },
    );
    call.on('error', () => {});
    let isFailed = false;
    acknowledged.catch(() => (isFailed = true));
    try {
      for await (const chunk of chunks) {
        if (isFailed) break;
        if (!call.write(chunk))
          await new Promise<void>((resolve) => {
            const done = (): void => {
              call.off('drain', done);
              call.off('close', done);
              resolve();
            };
            call.on('drain', done);
            call.on('close', done);
          });
      }
    } catch (error) {
      call.cancel();
      throw error;
    }
    call.end();
    return acknowledged;
  }

  async close(): Promise<void> {
    for (const [peerId, peer] of this.peers) this.closePeer(peerId, peer);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 1_000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private closePeer(peerId: string, peer: Peer): void {
    peer.link.close();
    peer.client.close();
    this.peers.delete(peerId);
  }

  /** Refuses the call (and logs it, at most once per interval per sender) without the cluster secret. */
  private isAuthorized(metadata: grpc.Metadata, method: string): boolean {
    if (hasClusterSecret(this.options.security, metadata)) return true;
    const senderId = senderIdOf(metadata);
    const nowMs = Date.now();
    const lastMs = this.lastRefusalLogMs.get(senderId) ?? 0;
    if (nowMs - lastMs >= refusalLogIntervalMs) {
      this.lastRefusalLogMs.set(senderId, nowMs);
      this.options.logger.warn({ senderId, method }, 'refused an inter-node call: wrong or missing cluster secret');
    }
    return false;
  }

  private refusal(): Partial<grpc.StatusObject> {
    return { code: grpc.status.UNAUTHENTICATED, details: 'wrong or missing cluster secret' };
  }

  private raftTransportImplementation(): grpc.UntypedServiceImplementation {
    const handlers = this.options.handlers;
    const groupId = this.options.groupId;
    const link: grpc.handleClientStreamingCall<Uint8Array, raftq.raft.LinkAck.$Properties> = (call, callback) => {
      if (!this.isAuthorized(call.metadata, 'Link')) return callback(this.refusal());
      const fromId = senderIdOf(call.metadata);
      let receivedCount = 0;
      let isFailed = false;
      call.on('data', (bytes: Uint8Array) => {
        if (isFailed) return;
        receivedCount += 1;
        let envelope: ReturnType<typeof decodeRaftEnvelope>;
        try {
          envelope = decodeRaftEnvelope(bytes);
        } catch (error) {
          // As when gRPC cannot parse a message: the stream fails and the sender reconnects.
          isFailed = true;
          callback({
            code: grpc.status.INTERNAL,
            details: `undecodable Raft envelope: ${error instanceof Error ? error.message : String(error)}`,
          });
          return;
        }
        if (envelope.groupId !== groupId || envelope.message === null) return;
        handlers.onRaftMessage(envelope.message, fromId, envelope.fromAddress);
      });
      call.on('end', () => {
        if (!isFailed) callback(null, { receivedCount });
      });
      call.on('error', () => {});
    };
    const sendSnapshot: grpc.handleClientStreamingCall<raftq.raft.SnapshotChunk, raftq.raft.SnapshotAck.$Properties> = (
      call,
      callback,
    ) => {
      if (!this.isAuthorized(call.metadata, 'SendSnapshot')) return callback(this.refusal());
      call.on('error', () => {});
      handlers.onSnapshot(call, senderIdOf(call.metadata)).then(
        (ack) => callback(null, ack),
        (error: unknown) => callback(null, { isInstalled: false, error: String(error) }),
      );
    };
    return { link, sendSnapshot } as grpc.UntypedServiceImplementation;
  }

  private opForwardingImplementation(): grpc.UntypedServiceImplementation {
    const forwardOps: grpc.handleBidiStreamingCall<
      raftq.cluster.OpCallBatch,
      raftq.cluster.OpReplyBatch.$Properties
    > = (call) => {
      if (!this.isAuthorized(call.metadata, 'ForwardOps')) {
        call.on('error', () => {});
        call.emit('error', { code: grpc.status.UNAUTHENTICATED, details: 'wrong or missing cluster secret' });
        return;
      }
      this.options.handlers.onOpStream(call, senderIdOf(call.metadata));
    };
    return { forwardOps } as grpc.UntypedServiceImplementation;
  }

  private clusterImplementation(): grpc.UntypedServiceImplementation {
    const implementation: Record<string, grpc.handleUnaryCall<unknown, unknown>> = {};
    for (const name of Object.keys(clusterMethods) as (keyof ClusterMethods)[]) {
      const handler = this.options.handlers[name] as (request: unknown, fromId: string) => Promise<unknown>;
      implementation[name] = (call, callback) => {
        if (!this.isAuthorized(call.metadata, name)) return callback(this.refusal());
        handler.call(this.options.handlers, call.request, senderIdOf(call.metadata)).then(
          (response) => callback(null, response),
          (error: unknown) =>
            callback({ code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) }),
        );
      };
    }
    return implementation as grpc.UntypedServiceImplementation;
  }
}
