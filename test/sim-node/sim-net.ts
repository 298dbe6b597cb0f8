/**
 * The simulated network between whole nodes, and each node's end of it (SimTransport, a
 * NodeTransport). Every message is serialized as the gRPC transport would serialize it and
 * decoded on arrival, so the receiver never shares an object with the sender.
 *
 * Links are directed. A link can be cut (partitions: halves, an isolated node, one-way cuts,
 * bridges); a cut is checked when a message is sent and again when it arrives, so messages in
 * flight are lost with the link. Raft messages may also be dropped at random; streams (forwarded
 * operations, snapshots) are never dropped message by message, as TCP would not: a cut or a dead
 * peer breaks them. Delays are random per message but keep each link in order (one stream per link
 * in the real transport). A delivery runs as the receiving process, so a crash of that process
 * drops what was in flight to it.
 */
import { EventEmitter } from 'node:events';
import type { SeededPrng } from '../../src/base/prng.js';
import { raftq } from '../../src/gen/proto.js';
import type { RaftMessage } from '../../src/raft/types.js';
import { clusterMethods, opForwardingMethods, raftTransportMethods } from '../../src/cluster/grpc-services.js';
import { PeerCallError, type GrpcTransportOptions, type TransportHandlers } from '../../src/cluster/grpc-transport.js';
import type {
  ClusterMethodName,
  ClusterRequestOf,
  ClusterResponseOf,
  NodeTransport,
} from '../../src/cluster/node-transport.js';
import type { OpClientCall } from '../../src/cluster/op-stream-client.js';
import type { OpServerCall } from '../../src/cluster/op-stream-server.js';
import { decodeRaftEnvelope, encodeRaftEnvelope } from '../../src/cluster/raft-codec.js';
import type { VirtualTime } from './virtual-time.js';

const grpcStatus = { deadlineExceeded: 4, unavailable: 14, internal: 13 } as const;
/** How long a call to a peer whose process is down takes to fail (connection refused). */
const refusedAfterMs = 2;

export class SimNet {
  private readonly endpoints = new Map<string, SimTransport>();
  private readonly cuts = new Set<string>();
  private readonly lastArrivalMs = new Map<string, number>();
  dropRate = 0;
  delayMsMin = 1;
  delayMsMax = 5;
  delivered = 0;
  lost = 0;

  constructor(
    readonly time: VirtualTime,
    private readonly prng: SeededPrng,
  ) {}

  /** Registers a process's transport: messages to `nodeId` go to it from now on. */
  attach(transport: SimTransport): void {
    this.endpoints.set(transport.selfId, transport);
  }

  /** The process of `nodeId` is gone: nothing reaches it until a new one attaches. */
  detach(nodeId: string, only?: SimTransport): void {
    const transport = this.endpoints.get(nodeId);
    if (transport === undefined || (only !== undefined && transport !== only)) return;
    this.endpoints.delete(nodeId);
    transport.isDead = true;
    transport.breakAllStreams();
  }

  cut(from: string, to: string): void {
    this.cuts.add(`${from}>${to}`);
  }

  healAll(): void {
    this.cuts.clear();
  }

  isLinkUp(from: string, to: string): boolean {
    return !this.cuts.has(`${from}>${to}`);
  }

  describeCuts(): string {
    return [...this.cuts].sort().join(' ');
  }

  endpoint(nodeId: string): SimTransport | undefined {
    return this.endpoints.get(nodeId);
  }

  /**
   * Carries one message from `sender` to the process of `toId` (or exactly to `receiver`: an
   * answer goes back to the incarnation that asked) and runs `deliver` as the receiver on arrival;
   * `onLost` runs as the sender when the message cannot arrive (cut link, dead receiver, random
   * drop if droppable).
   */
  post(
    sender: SimTransport,
    toId: string,
    options: { droppable: boolean; receiver?: SimTransport },
    deliver: (target: SimTransport) => void,
    onLost?: (why: 'cut' | 'down' | 'drop') => void,
  ): void {
    const from = sender.selfId;
    const lose = (why: 'cut' | 'down' | 'drop'): void => {
      this.lost++;
      if (onLost !== undefined && !sender.isDead)
        this.time.at(sender.owner, why === 'down' ? refusedAfterMs : 0, () => onLost(why));
    };
    if (sender.isDead) return;
    if (!this.isLinkUp(from, toId)) return lose('cut');
    if (options.droppable && this.dropRate > 0 && this.prng.nextFloat() < this.dropRate) return lose('drop');
    const target = options.receiver ?? this.endpoints.get(toId);
    if (target === undefined || target.isDead) return lose('down');
    const link = `${from}>${toId}`;
    const delayMs = this.delayMsMin + this.prng.intBelow(this.delayMsMax - this.delayMsMin + 1);
    const arrivalMs = Math.max(this.time.nowMs + delayMs, this.lastArrivalMs.get(link) ?? 0);
    this.lastArrivalMs.set(link, arrivalMs);
    this.time.at(target.owner, arrivalMs - this.time.nowMs, () => {
      if (target.isDead) return;
      if (!this.isLinkUp(from, toId)) return lose('cut');
      this.delivered++;
      deliver(target);
    });
  }
}

/** A node's end of the simulated network. */
export class SimTransport implements NodeTransport {
  readonly port = 0;
  isDead = false;
  private readonly peers = new Map<string, string>();
  private readonly streams = new Set<SimStreamPair>();

  constructor(
    private readonly net: SimNet,
    readonly owner: string,
    private readonly options: GrpcTransportOptions,
  ) {}

  get selfId(): string {
    return this.options.selfId;
  }

  get handlers(): TransportHandlers {
    return this.options.handlers;
  }

  setPeer(peerId: string, address: string): void {
    this.peers.set(peerId, address);
  }

  removePeer(peerId: string): void {
    this.peers.delete(peerId);
  }

  peerAddress(peerId: string): string | undefined {
    return this.peers.get(peerId);
  }

  peerIds(): string[] {
    return [...this.peers.keys()];
  }

  sendRaft(message: RaftMessage): boolean {
    if (!this.peers.has(message.to) || this.isDead) return false;
    const bytes = encodeRaftEnvelope(this.options.groupId, message, this.options.announcedAddress?.() ?? '');
    const from = this.selfId;
    this.net.post(
      this,
      message.to,
      { droppable: true },
      (target) => {
        const envelope = decodeRaftEnvelope(bytes);
        if (envelope.groupId !== this.options.groupId || envelope.message === null) return;
        target.handlers.onRaftMessage(envelope.message, from, envelope.fromAddress);
      },
      (why) => {
        if (why !== 'drop') this.handlers.onPeerUnreachable(message.to);
      },
    );
    return true;
  }

  linkStats(): Record<string, { queued: number; sent: number; dropped: number; reconnects: number }> {
    return {};
  }

  call<K extends ClusterMethodName>(
    peerId: string,
    name: K,
    request: ClusterRequestOf<K>,
    timeoutMs: number,
  ): Promise<ClusterResponseOf<K>> {
    if (!this.peers.has(peerId))
      return Promise.reject(new PeerCallError(peerId, name, null, { cause: new Error('unknown peer') }));
    const method = clusterMethods[name];
    const requestBytes = (method.requestSerialize as (r: ClusterRequestOf<K>) => Buffer)(request);
    const from = this.selfId;
    return new Promise<ClusterResponseOf<K>>((resolve, reject) => {
      let isSettled = false;
      const settle = (fn: () => void): void => {
        if (isSettled) return;
        isSettled = true;
        cancelDeadline();
        fn();
      };
      const cancelDeadline = this.net.time.at(this.owner, timeoutMs, () =>
        settle(() => reject(new PeerCallError(peerId, name, grpcStatus.deadlineExceeded))),
      );
      this.net.post(
        this,
        peerId,
        { droppable: false },
        (target) => {
          const handler = target.handlers[name] as (request: unknown, fromId: string) => Promise<unknown>;
          handler.call(target.handlers, method.requestDeserialize(requestBytes), from).then(
            (response) => {
              const responseBytes = (method.responseSerialize as (r: unknown) => Buffer)(response);
              this.net.post(target, from, { droppable: false, receiver: this }, () =>
                settle(() => resolve(method.responseDeserialize(responseBytes) as ClusterResponseOf<K>)),
              );
            },
            (error: unknown) => {
              const details = error instanceof Error ? error.message : String(error);
              this.net.post(target, from, { droppable: false, receiver: this }, () =>
                settle(() =>
                  reject(new PeerCallError(peerId, name, grpcStatus.internal, { cause: new Error(details) })),
                ),
              );
            },
          );
        },
        (why) => {
          if (why === 'down') settle(() => reject(new PeerCallError(peerId, name, grpcStatus.unavailable)));
        },
      );
    });
  }

  openOpStream(peerId: string): OpClientCall | null {
    if (!this.peers.has(peerId) || this.isDead) return null;
    const pair = new SimStreamPair(this.net, this, peerId, (target, served) => {
      target.adopt(served.pair);
      target.handlers.onOpStream(served as unknown as OpServerCall, this.selfId);
    });
    this.streams.add(pair);
    return pair.client as unknown as OpClientCall;
  }

  async sendSnapshot(
    peerId: string,
    chunks: AsyncIterable<raftq.raft.SnapshotChunk.$Properties>,
    timeoutMs: number,
  ): Promise<raftq.raft.SnapshotAck> {
    if (!this.peers.has(peerId))
      throw new PeerCallError(peerId, 'sendSnapshot', null, { cause: new Error('unknown peer') });
    const method = raftTransportMethods.sendSnapshot;
    const encoded: Buffer[] = [];
    for await (const chunk of chunks) encoded.push(method.requestSerialize(chunk));
    const from = this.selfId;
    return new Promise<raftq.raft.SnapshotAck>((resolve, reject) => {
      let isSettled = false;
      const settle = (fn: () => void): void => {
        if (isSettled) return;
        isSettled = true;
        cancelDeadline();
        fn();
      };
      const lostAfterMs = Math.min(timeoutMs, 5_000);
      const cancelDeadline = this.net.time.at(this.owner, lostAfterMs, () =>
        settle(() => reject(new PeerCallError(peerId, 'sendSnapshot', grpcStatus.deadlineExceeded))),
      );
      this.net.post(
        this,
        peerId,
        { droppable: false },
        (target) => {
          async function* decoded(): AsyncGenerator<raftq.raft.SnapshotChunk> {
            for (const bytes of encoded) yield method.requestDeserialize(bytes) as raftq.raft.SnapshotChunk;
          }
          target.handlers.onSnapshot(decoded(), from).then(
            (ack) => {
              const ackBytes = method.responseSerialize(ack);
              this.net.post(target, from, { droppable: false, receiver: this }, () =>
                settle(() => resolve(method.responseDeserialize(ackBytes) as raftq.raft.SnapshotAck)),
              );
            },
            (error: unknown) =>
              this.net.post(target, from, { droppable: false, receiver: this }, () =>
                settle(() => reject(new PeerCallError(peerId, 'sendSnapshot', grpcStatus.internal, { cause: error }))),
              ),
          );
        },
        (why) => {
          if (why === 'down') settle(() => reject(new PeerCallError(peerId, 'sendSnapshot', grpcStatus.unavailable)));
        },
      );
    });
  }

  async close(): Promise<void> {
    this.breakAllStreams();
    this.net.detach(this.selfId, this);
  }

  adopt(pair: SimStreamPair): void {
    this.streams.add(pair);
  }

  forget(pair: SimStreamPair): void {
    this.streams.delete(pair);
  }

  breakAllStreams(): void {
    for (const pair of [...this.streams]) pair.breakBoth('the peer process is gone');
  }
}

/** One forwarded-operation stream: the follower's client end and the leader's server end. */
class SimStreamPair {
  readonly client: SimClientEnd;
  readonly server: SimServerEnd;
  private serverTransport: SimTransport | null = null;
  isBroken = false;

  constructor(
    private readonly net: SimNet,
    readonly clientTransport: SimTransport,
    readonly serverId: string,
    private readonly open: (target: SimTransport, server: SimServerEnd) => void,
  ) {
    this.client = new SimClientEnd(this);
    this.server = new SimServerEnd(this);
  }

  get clientId(): string {
    return this.clientTransport.selfId;
  }

  /** Client → server: the first message opens the stream on the server. */
  toServer(bytes: Buffer | null, isEnd: boolean): void {
    this.net.post(
      this.clientTransport,
      this.serverId,
      this.serverTransport === null ? { droppable: false } : { droppable: false, receiver: this.serverTransport },
      (target) => {
        if (this.isBroken) return;
        if (this.serverTransport === null) {
          this.serverTransport = target;
          this.open(target, this.server);
        }
        if (bytes !== null) this.server.emit('data', opForwardingMethods.forwardOps.requestDeserialize(bytes));
        if (isEnd) this.server.emit('end');
      },
      () => this.breakBoth('the link to the leader is cut'),
    );
  }

  toClient(bytes: Buffer | null, isEnd: boolean): void {
    const server = this.serverTransport;
    if (server === null) return;
    this.net.post(
      server,
      this.clientId,
      { droppable: false, receiver: this.clientTransport },
      () => {
        if (this.isBroken) return;
        if (bytes !== null) this.client.emit('data', opForwardingMethods.forwardOps.responseDeserialize(bytes));
        if (isEnd) {
          this.isBroken = true;
          this.client.emit('end');
        }
      },
      () => this.breakBoth('the link from the leader is cut'),
    );
  }

  /** Both ends hear of the break, each as its own process (a dead one hears nothing). */
  breakBoth(why: string): void {
    if (this.isBroken) return;
    this.isBroken = true;
    this.clientTransport.forget(this);
    const server = this.serverTransport;
    server?.forget(this);
    const client = this.clientTransport;
    if (!client.isDead)
      this.net.time.at(client.owner, 1, () =>
        this.client.emit('error', Object.assign(new Error(why), { code: grpcStatus.unavailable })),
      );
    if (server !== null && !server.isDead) this.net.time.at(server.owner, 1, () => this.server.emit('cancelled'));
  }
}

class SimClientEnd extends EventEmitter {
  constructor(private readonly pair: SimStreamPair) {
    super();
  }

  write(batch: raftq.cluster.OpCallBatch.$Properties): boolean {
    if (!this.pair.isBroken) this.pair.toServer(opForwardingMethods.forwardOps.requestSerialize(batch), false);
    return true;
  }

  end(): void {
    if (!this.pair.isBroken) this.pair.toServer(null, true);
  }

  cancel(): void {
    this.pair.breakBoth('cancelled by the client');
  }
}

class SimServerEnd extends EventEmitter {
  constructor(readonly pair: SimStreamPair) {
    super();
  }

  write(batch: raftq.cluster.OpReplyBatch.$Properties): boolean {
    if (!this.pair.isBroken) this.pair.toClient(opForwardingMethods.forwardOps.responseSerialize(batch), false);
    return true;
  }

  end(): void {
    if (!this.pair.isBroken) this.pair.toClient(null, true);
  }
}

export function simTransportFactory(
  net: SimNet,
  owner: string,
): (options: GrpcTransportOptions) => Promise<NodeTransport> {
  return async (options) => {
    const transport = new SimTransport(net, owner, options);
    net.attach(transport);
    return transport;
  };
}
