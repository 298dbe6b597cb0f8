/**
 * A follower's side of operation forwarding: per leader one long-lived bidirectional stream,
 * opened on first use. Calls made in the same turn of the event loop leave in one message (and
 * cancels with them); replies come back batched the same way and are matched by call id.
 *
 * One attempt only: when the stream breaks with calls in flight, each fails with
 * ForwardedOperationLostError (the leader may have run it), and the next call opens a new stream.
 * Whether to forward again is the caller's decision (src/forwarding knows which operations are
 * safe to repeat).
 */
import type * as grpc from '@grpc/grpc-js';
import { raftLimits } from '../base/limits.js';
import { SystemScheduler, type Scheduler } from '../base/scheduler.js';
import type { raftq } from '../gen/proto.js';
import { ForwardedOperationLostError, RemoteOperationError } from './errors.js';

export type OpClientCall = grpc.ClientDuplexStream<raftq.cluster.OpCallBatch.$Properties, raftq.cluster.OpReplyBatch>;

/** What the leader answered: the result bytes, or that it does not lead (nothing ran). Its errors are thrown. */
export type OpAnswer =
  | { readonly kind: 'result'; readonly result: Uint8Array }
  | { readonly kind: 'not-leader'; readonly leaderHint: string };

export interface OpCallOptions {
  /** Aborting asks the leader to end the operation's wait (a long poll); the answer still comes. */
  readonly signal?: AbortSignal;
  /** How long the leader may let the operation wait (a long poll), in ms; 0 for none. */
  readonly waitMs: number;
}

export interface OpStreamClientParts {
  readonly groupId: number;
  /** Opens a stream to the peer, or null when it is not known. */
  readonly open: (peerId: string) => OpClientCall | null;
  /** The timers a stream's batched flush is scheduled on; default the host's. */
  readonly scheduler?: Scheduler;
}

interface PendingCall {
  resolve(answer: OpAnswer): void;
  reject(error: Error): void;
}

/** One stream to one leader. */
class OpStream {
  private readonly pending = new Map<number, PendingCall>();
  private calls: raftq.cluster.OpCall.$Properties[] = [];
  private cancels: number[] = [];
  private isFlushScheduled = false;
  private nextCallId = 1;
  isBroken = false;

  constructor(
    private readonly peerId: string,
    private readonly groupId: number,
    private readonly call: OpClientCall,
    private readonly onBroken: (stream: OpStream) => void,
    private readonly scheduler: Scheduler,
  ) {
    call.on('data', (batch: raftq.cluster.OpReplyBatch) => {
      for (const reply of batch.replies) this.settle(reply);
    });
    call.on('error', (error: Error) => this.breakWith(error));
    call.on('end', () => this.breakWith(new Error('the leader ended the stream')));
  }

  send(kind: number, args: Uint8Array, options: OpCallOptions): Promise<OpAnswer> {
    const callId = this.nextCallId++;
    return new Promise<OpAnswer>((resolve, reject) => {
      const signal = options.signal;
      const onAbort = (): void => this.cancel(callId);
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.pending.set(callId, {
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.calls.push({ callId, kind, args, waitMs: Math.max(0, Math.ceil(options.waitMs)) });
      if (signal?.aborted === true) this.cancels.push(callId);
      this.scheduleFlush();
    });
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  close(): void {
    this.breakWith(new Error('the stream was closed'));
    this.call.cancel();
  }

  private cancel(callId: number): void {
    if (!this.pending.has(callId)) return;
    this.cancels.push(callId);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.isFlushScheduled) return;
    this.isFlushScheduled = true;
    this.scheduler.immediate(() => this.flush());
  }

  private flush(): void {
    this.isFlushScheduled = false;
    if (this.isBroken || (this.calls.length === 0 && this.cancels.length === 0)) return;
    const calls = this.calls;
    let cancelCallIds = this.cancels;
    this.calls = [];
    this.cancels = [];
    // Messages stay well inside gRPC's size limit: a burst of large sends leaves in several.
    for (const chunk of chunksByBytes(calls, (call) => call.args?.byteLength ?? 0)) {
      this.call.write({ groupId: this.groupId, calls: chunk, cancelCallIds });
      cancelCallIds = [];
    }
    if (calls.length === 0) this.call.write({ groupId: this.groupId, calls: [], cancelCallIds });
  }

  private settle(reply: raftq.cluster.OpReply.$Properties): void {
    const callId = Number(reply.callId ?? 0);
    const pending = this.pending.get(callId);
    if (pending === undefined) return;
    this.pending.delete(callId);
    if (reply.isNotLeader === true) pending.resolve({ kind: 'not-leader', leaderHint: reply.leaderHint ?? '' });
    else if (reply.isError === true)
      pending.reject(
        new RemoteOperationError(
          reply.errorCode || 'InternalFailure',
          reply.errorMessage ?? '',
          reply.isRetryable === true,
        ),
      );
    else pending.resolve({ kind: 'result', result: reply.result ?? new Uint8Array(0) });
  }

  private breakWith(cause: Error): void {
    if (this.isBroken) return;
    this.isBroken = true;
    this.onBroken(this);
    const lost = [...this.pending.values()];
    this.pending.clear();
    for (const call of lost) call.reject(new ForwardedOperationLostError(this.peerId, { cause }));
  }
}

/** Splits items into runs of at most opBatchBytesMax bytes (an item larger than that goes alone). */
export function chunksByBytes<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  const bytesMax = raftLimits.opBatchBytesMax.value;
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && bytes + size > bytesMax) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export class OpStreamClient {
  private readonly streams = new Map<string, OpStream>();

  private readonly scheduler: Scheduler;

  constructor(private readonly parts: OpStreamClientParts) {
    this.scheduler = parts.scheduler ?? new SystemScheduler();
  }

  /** Forwards one operation to `leader`. Rejects with RemoteOperationError (the leader's error) or ForwardedOperationLostError. */
  call(leader: string, kind: number, args: Uint8Array, options: OpCallOptions): Promise<OpAnswer> {
    const stream = this.streamTo(leader);
    if (stream === null)
      return Promise.reject(new ForwardedOperationLostError(leader, { cause: new Error('unknown peer') }));
    return stream.send(kind, args, options);
  }

  /** Breaks every stream (node shutdown): calls in flight fail as lost. */
  close(): void {
    for (const stream of [...this.streams.values()]) stream.close();
    this.streams.clear();
  }

  private streamTo(peerId: string): OpStream | null {
    const existing = this.streams.get(peerId);
    if (existing !== undefined && !existing.isBroken) return existing;
    const call = this.parts.open(peerId);
    if (call === null) return null;
    const stream = new OpStream(
      peerId,
      this.parts.groupId,
      call,
      (broken) => {
        if (this.streams.get(peerId) === broken) this.streams.delete(peerId);
      },
      this.scheduler,
    );
    this.streams.set(peerId, stream);
    return stream;
  }
}
