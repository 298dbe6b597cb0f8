/**
 * The leader's side of operation forwarding: one bidirectional stream per follower, calls in and
 * replies out, many per message. Each call runs on the handler the node's owner registered (the
 * queue layer, through src/forwarding) against this node's freshest state; its reply carries the
 * result bytes or the error it ended with. A node that does not lead (or has no handler yet)
 * answers "not leader" without running anything, so the follower may send the call elsewhere.
 *
 * Replies finished in the same turn of the event loop leave in one message. A cancel ends a call's
 * wait (a long poll whose client went away), and so does this node's stepping down; the call still
 * answers with what it has.
 */
import type * as grpc from '@grpc/grpc-js';
import { LazyCancellation } from '../base/cancellation.js';
import { isRaftqError } from '../base/errors.js';
import { SystemScheduler, type Scheduler } from '../base/scheduler.js';
import type { raftq } from '../gen/proto.js';
import type { NodeMetrics } from './node-metrics.js';
import { chunksByBytes } from './op-stream-client.js';

/**
 * Runs one forwarded operation: `kind` and `args` as the follower sent them; resolves with the
 * result bytes. `options.signal` is made when first read (base/cancellation.ts): read it only for
 * an operation that waits.
 */
export type OpHandler = (
  kind: number,
  args: Uint8Array,
  options: { readonly signal: AbortSignal },
) => Promise<Uint8Array>;

export type OpServerCall = grpc.ServerDuplexStream<raftq.cluster.OpCallBatch, raftq.cluster.OpReplyBatch.$Properties>;

export interface OpStreamServerParts {
  readonly groupId: number;
  readonly metrics: NodeMetrics;
  readonly isLeader: () => boolean;
  readonly isStopping: () => boolean;
  readonly leaderHint: () => string;
  /** The timers a forwarded long poll's wait is bounded on and replies are batched on; default the host's. */
  readonly scheduler?: Scheduler;
}

export class OpStreamServer {
  private handler: OpHandler | null = null;
  /** Every call running now, on every stream. */
  private readonly allRunning = new Set<LazyCancellation>();

  private readonly scheduler: Scheduler;

  constructor(private readonly parts: OpStreamServerParts) {
    this.scheduler = parts.scheduler ?? new SystemScheduler();
  }

  /** Registers what runs forwarded operations; until then every call is answered "not leader". */
  setHandler(handler: OpHandler | null): void {
    this.handler = handler;
  }

  /**
   * This node stopped leading: calls still running end their waits (a long poll answers with what
   * it has), so followers hear back at once and ask the new leader next time.
   */
  steppedDown(): void {
    for (const cancellation of this.allRunning) cancellation.abort();
  }

  /** Serves one follower's stream until it ends or breaks. */
  serve(call: OpServerCall): void {
    const running = new Map<number, LazyCancellation>();
    let replies: raftq.cluster.OpReply.$Properties[] = [];
    let isFlushScheduled = false;
    let isInputEnded = false;
    let isBroken = false;
    const flush = (): void => {
      isFlushScheduled = false;
      if (isBroken) return;
      if (replies.length > 0) {
        for (const chunk of chunksByBytes(
          replies,
          (reply) => (reply.result?.byteLength ?? 0) + (reply.errorMessage?.length ?? 0),
        ))
          call.write({ replies: chunk });
        replies = [];
      }
      if (isInputEnded && running.size === 0) call.end();
    };
    const reply = (message: raftq.cluster.OpReply.$Properties): void => {
      if (isBroken) return;
      replies.push(message);
      if (!isFlushScheduled) {
        isFlushScheduled = true;
        this.scheduler.immediate(flush);
      }
    };
    const abandon = (): void => {
      isBroken = true;
      for (const cancellation of running.values()) cancellation.abort();
    };
    call.on('data', (batch: raftq.cluster.OpCallBatch) => {
      for (const id of batch.cancelCallIds) running.get(Number(id))?.abort();
      for (const opCall of batch.calls) {
        const callId = Number(opCall.callId ?? 0);
        if (batch.groupId !== this.parts.groupId) {
          reply({
            callId,
            isError: true,
            errorMessage: `this node serves Raft group ${this.parts.groupId}, not ${batch.groupId}`,
          });
          continue;
        }
        this.run(opCall, running, reply);
      }
    });
    call.on('end', () => {
      isInputEnded = true;
      if (!isFlushScheduled) flush();
    });
    call.on('error', abandon);
    call.on('cancelled', abandon);
  }

  private run(
    opCall: raftq.cluster.OpCall.$Properties,
    running: Map<number, LazyCancellation>,
    reply: (message: raftq.cluster.OpReply.$Properties) => void,
  ): void {
    const callId = Number(opCall.callId ?? 0);
    const { handler, parts } = this;
    if (handler === null || !parts.isLeader() || parts.isStopping()) {
      parts.metrics.servedForwardedOps.inc({ result: 'not-leader' });
      reply({ callId, isNotLeader: true, leaderHint: parts.leaderHint() });
      return;
    }
    const cancellation = new LazyCancellation();
    running.set(callId, cancellation);
    this.allRunning.add(cancellation);
    // The caller stops waiting then: a long poll must have answered by that time.
    const waitMs = opCall.waitMs ?? 0;
    const cancelTimer = waitMs > 0 ? this.scheduler.after(waitMs, () => cancellation.abort()) : null;
    const startedAtMs = this.scheduler.monotonicMs();
    handler(opCall.kind ?? 0, opCall.args ?? new Uint8Array(0), cancellation)
      .then(
        (result) => {
          parts.metrics.servedForwardedOps.inc({ result: 'ok' });
          reply({ callId, result });
        },
        (error: unknown) => {
          parts.metrics.servedForwardedOps.inc({ result: 'error' });
          reply({ callId, ...errorToReply(error) });
        },
      )
      .finally(() => {
        parts.metrics.servedForwardedOpSeconds.observe((this.scheduler.monotonicMs() - startedAtMs) / 1000);
        cancelTimer?.();
        running.delete(callId);
        this.allRunning.delete(cancellation);
      });
  }
}

/** An error as a reply: a queue-layer error keeps its code, message and retryability. */
export function errorToReply(error: unknown): raftq.cluster.OpReply.$Properties {
  if (isRaftqError(error))
    return { isError: true, errorCode: error.code, errorMessage: error.message, isRetryable: error.isRetryable };
  return {
    isError: true,
    errorCode: '',
    errorMessage: error instanceof Error ? error.message : String(error),
    isRetryable: false,
  };
}
