/**
 * The sending half of one directed link to a peer: a long-lived gRPC client stream that carries
 * Raft messages one way only. Messages wait in a bounded queue while the stream is not writable;
 * when the queue is full new messages are dropped (Raft retransmits what matters), so a slow or
 * dead peer never grows memory without bound. A broken stream is reopened with back-off.
 */
import type * as grpc from '@grpc/grpc-js';
import { raftLimits } from '../base/limits.js';
import { raftTransportMethods } from './grpc-services.js';

export interface PeerLinkOptions {
  readonly peerId: string;
  readonly client: grpc.Client;
  readonly metadata: () => grpc.Metadata;
  /** Called when the stream breaks: Raft should treat the peer as unreachable until it answers. */
  readonly onBroken: (peerId: string, error: grpc.ServiceError | null) => void;
  readonly queueMessagesMax?: number;
  readonly jitter: () => number;
}

export interface PeerLinkStats {
  sentMessages: number;
  droppedMessages: number;
  reconnects: number;
}

export class PeerLink {
  /** Encoded RaftEnvelopes (raft-codec.ts encodeRaftEnvelope). */
  private readonly queue: Uint8Array[] = [];
  private call: grpc.ClientWritableStream<Uint8Array> | null = null;
  private isWritable = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private backoffMs: number = raftLimits.peerReconnectBackoffMsMin.value;
  private callOpenedAtMs = 0;
  private isClosed = false;
  readonly stats: PeerLinkStats = { sentMessages: 0, droppedMessages: 0, reconnects: 0 };

  constructor(private readonly options: PeerLinkOptions) {}

  /** Queues one encoded envelope; returns false when it was dropped because the queue is full. */
  send(envelope: Uint8Array): boolean {
    if (this.isClosed) return false;
    const queueMessagesMax = this.options.queueMessagesMax ?? raftLimits.sendQueueMessagesMax.value;
    if (this.queue.length >= queueMessagesMax) {
      this.stats.droppedMessages += 1;
      return false;
    }
    this.queue.push(envelope);
    this.pump();
    return true;
  }

  queuedMessages(): number {
    return this.queue.length;
  }

  close(): void {
    this.isClosed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.queue.length = 0;
    const call = this.call;
    this.call = null;
    call?.end();
  }

  private pump(): void {
    if (this.call === null) {
      this.open();
      if (this.call === null) return;
    }
    const call = this.call;
    while (this.isWritable && this.queue.length > 0) {
      const envelope = this.queue.shift();
      if (envelope === undefined) break;
      this.stats.sentMessages += 1;
      if (!call.write(envelope)) {
        this.isWritable = false;
        call.once('drain', () => {
          if (this.call !== call) return;
          this.isWritable = true;
          this.pump();
        });
      }
    }
  }

  private open(): void {
    if (this.isClosed || this.reconnectTimer !== null) return;
    const { client, metadata } = this.options;
    const method = raftTransportMethods.link;
    this.callOpenedAtMs = Date.now();
    const call = client.makeClientStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      metadata(),
      {},
      (error) => this.onCallEnded(call, error),
    );
    // Errors also arrive through the callback; the listener keeps them from being thrown.
    call.on('error', () => {});
    this.call = call;
    this.isWritable = true;
  }

  private onCallEnded(call: object, error: grpc.ServiceError | null): void {
    if (this.call !== call) return;
    this.call = null;
    this.isWritable = false;
    if (this.isClosed) return;
    this.options.onBroken(this.options.peerId, error);
    // A stream that lived a while was healthy: start the back-off from the bottom again.
    const livedMs = Date.now() - this.callOpenedAtMs;
    if (livedMs > raftLimits.peerReconnectBackoffMsMax.value)
      this.backoffMs = raftLimits.peerReconnectBackoffMsMin.value;
    const delayMs = Math.round(this.backoffMs * (0.5 + this.options.jitter()));
    this.backoffMs = Math.min(this.backoffMs * 2, raftLimits.peerReconnectBackoffMsMax.value);
    this.stats.reconnects += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.queue.length > 0) this.pump();
    }, delayMs);
    this.reconnectTimer.unref();
  }
}
