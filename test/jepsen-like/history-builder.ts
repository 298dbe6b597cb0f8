import type { HistoryOp } from '../../jepsen-like/history/history-op.js';
import { pairOperations, type OperationPair } from '../../jepsen-like/history/operation-pairs.js';

interface Pending {
  readonly timeMs: number;
  readonly seq: number;
  readonly op: Omit<HistoryOp, 'index'>;
}

/**
 * Builds synthetic histories for checker tests: each call adds an operation's invocation at
 * `fromMs` and its completion at `toMs` (none when `outcome` is 'open'); build() orders every event
 * by time, as a recorder would have seen them.
 */
export class HistoryBuilder {
  private readonly events: Pending[] = [];
  private seq = 0;

  op(args: {
    process: number;
    f: string;
    value: unknown;
    fromMs: number;
    toMs?: number;
    outcome: 'ok' | 'fail' | 'info' | 'open';
    result?: unknown;
  }): this {
    this.events.push({
      timeMs: args.fromMs,
      seq: this.seq++,
      op: { process: args.process, type: 'invoke', f: args.f, value: args.value, timeMs: args.fromMs },
    });
    if (args.outcome !== 'open') {
      const toMs = args.toMs ?? args.fromMs + 1;
      this.events.push({
        timeMs: toMs,
        seq: this.seq++,
        op: { process: args.process, type: args.outcome, f: args.f, value: args.result ?? null, timeMs: toMs },
      });
    }
    return this;
  }

  send(
    process: number,
    body: string,
    fromMs: number,
    outcome: 'ok' | 'fail' | 'info' | 'open',
    extra: {
      queue?: string;
      messageId?: string;
      groupId?: string;
      dedupId?: string;
      sequenceNumber?: string;
      toMs?: number;
    } = {},
  ): this {
    const queue = extra.queue ?? 'q';
    const value = {
      queue,
      body,
      ...(extra.groupId === undefined ? {} : { groupId: extra.groupId }),
      ...(extra.dedupId === undefined ? {} : { dedupId: extra.dedupId }),
    };
    const result = {
      messageId: extra.messageId ?? `id-${body}`,
      ...(extra.sequenceNumber === undefined ? {} : { sequenceNumber: extra.sequenceNumber }),
    };
    return this.op({
      process,
      f: 'send',
      value,
      fromMs,
      ...(extra.toMs === undefined ? {} : { toMs: extra.toMs }),
      outcome,
      result,
    });
  }

  receive(
    process: number,
    messages: Array<{
      body: string;
      messageId?: string;
      handle?: string;
      seq?: string;
      groupId?: string;
      dedupId?: string;
      receiveCount?: number;
    }>,
    fromMs: number,
    toMs: number,
    extra: { queue?: string; visibilityTimeoutSeconds?: number; outcome?: 'ok' | 'info' | 'fail' } = {},
  ): this {
    const value = {
      queue: extra.queue ?? 'q',
      visibilityTimeoutSeconds: extra.visibilityTimeoutSeconds ?? 30,
      maxMessages: 10,
    };
    const result = {
      messages: messages.map((m) => ({
        body: m.body,
        messageId: m.messageId ?? `id-${m.body}`,
        receiptHandle: m.handle ?? `h-${m.body}-${fromMs}`,
        ...(m.seq === undefined ? {} : { sequenceNumber: m.seq }),
        ...(m.groupId === undefined ? {} : { groupId: m.groupId }),
        ...(m.dedupId === undefined ? {} : { dedupId: m.dedupId }),
        ...(m.receiveCount === undefined ? {} : { receiveCount: m.receiveCount }),
      })),
    };
    return this.op({ process, f: 'receive', value, fromMs, toMs, outcome: extra.outcome ?? 'ok', result });
  }

  delete(
    process: number,
    body: string,
    handle: string,
    fromMs: number,
    toMs: number,
    outcome: 'ok' | 'fail' | 'info' = 'ok',
    extra: { queue?: string; messageId?: string } = {},
  ): this {
    const value = {
      queue: extra.queue ?? 'q',
      body,
      messageId: extra.messageId ?? `id-${body}`,
      receiptHandle: handle,
    };
    return this.op({ process, f: 'delete', value, fromMs, toMs, outcome, result: {} });
  }

  build(): HistoryOp[] {
    return [...this.events]
      .sort((a, b) => a.timeMs - b.timeMs || a.seq - b.seq)
      .map((e, index) => ({ ...e.op, index }));
  }

  pairs(): OperationPair[] {
    return pairOperations(this.build());
  }
}
