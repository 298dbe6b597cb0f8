/**
 * Getting a transaction applied from any node. On the leader it joins the next proposed entry; on
 * a follower it is forwarded to the leader (batched: one call carries every transaction that
 * queued while the previous calls were in flight) and the caller waits until this replica has
 * applied the entry that carried it, so a read after commit() sees the write.
 *
 * When the leader changes or a call fails the transaction is tried again, with the same txnId,
 * until raftLimits.proposalTimeoutMs: the apply step answers a repeated txnId with its first
 * outcome, so no attempt can apply twice. Past the bound the caller gets a retryable error:
 * ProposalOutcomeUnknownError if any attempt may have reached a leader, NoLeaderError otherwise.
 */
import { delay } from '../base/delay.js';
import { raftLimits } from '../base/limits.js';
import type { Scheduler } from '../base/scheduler.js';
import type { raftq } from '../gen/proto.js';
import type { Txn, TxnOutcome } from '../storage/txn.js';
import { validateTxn } from '../storage/txn-codec.js';
import {
  LeadershipLostError,
  NoLeaderError,
  NodeStoppingError,
  NotLeaderError,
  ProposalOutcomeUnknownError,
} from './errors.js';
import { OutcomeKind, outcomeFromWire, outcomeToWire, txnFromWire, txnToWire } from './forward-codec.js';
import type { GrpcTransport } from './grpc-transport.js';
import { leaderRetryBackoffMs } from './leader-retry-backoff.js';
import type { NodeMetrics } from './node-metrics.js';
import { txnSizeBytes } from './proposal-batcher.js';
import type { AppliedTxn } from './txn-waiters.js';

/** What the committer needs of its node. */
export interface TxnCommitterParts {
  readonly nodeId: string;
  readonly groupId: number;
  readonly metrics: NodeMetrics;
  readonly isStopping: () => boolean;
  readonly isLeader: () => boolean;
  /** The leader this node believes in now, or ''. */
  readonly leaderId: () => string;
  readonly waitForLeader: (timeoutMs: number) => Promise<string>;
  /** Leader only: queues `txn` for the next entry; resolves once applied here. */
  readonly proposeLocally: (txn: Txn) => { promise: Promise<AppliedTxn>; cancel(): void };
  /** Resolves once this replica applied `index`; false on timeout. */
  readonly waitApplied: (index: number, timeoutMs: number) => Promise<boolean>;
  /** The node's timers and monotonic clock (the runtime's): retries and deadlines run on it. */
  readonly scheduler: Scheduler;
  readonly callPeer: GrpcTransport['call'];
}

/** Forward calls one follower keeps in flight to the leader; more queue into the next batch. */
const forwardCallsInFlightMax = 4;

interface QueuedForward {
  readonly leader: string;
  readonly txn: Txn;
  resolve(result: raftq.cluster.TxnResult.$Properties): void;
  reject(error: Error): void;
}

/** An attempt ended without an outcome: whether it may have reached a leader decides the final error. */
class AttemptFailed extends Error {
  constructor(
    readonly mayHaveBeenProposed: boolean,
    options: { cause?: unknown },
  ) {
    super('attempt failed', options);
  }
}

export class TxnCommitter {
  private inFlight = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private forwardQueue: QueuedForward[] = [];
  private forwardCallsInFlight = 0;

  constructor(private readonly parts: TxnCommitterParts) {}

  async commit(txn: Txn): Promise<TxnOutcome> {
    if (this.parts.isStopping()) throw new NodeStoppingError(this.parts.nodeId);
    // A malformed txn is refused here, before it could reach (and wedge) the log.
    validateTxn(txn);
    this.inFlight += 1;
    try {
      return await this.commitWithRetries(txn);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Resolves when no commit is in flight, or at `deadlineMs` (on the scheduler's monotonic clock). */
  async drain(deadlineMs: number): Promise<void> {
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const cancelTimer = this.parts.scheduler.after(
        Math.max(0, deadlineMs - this.parts.scheduler.monotonicMs()),
        resolve,
      );
      this.idleWaiters.push(() => {
        cancelTimer();
        resolve();
      });
    });
  }

  private async commitWithRetries(txn: Txn): Promise<TxnOutcome> {
    const timeoutMs = raftLimits.proposalTimeoutMs.value;
    const deadlineMs = this.parts.scheduler.monotonicMs() + timeoutMs;
    let mayHaveBeenProposed = false;
    let lastError: unknown = null;
    for (let attempt = 0; ; attempt++) {
      const remainingMs = deadlineMs - this.parts.scheduler.monotonicMs();
      if (remainingMs <= 0 || this.parts.isStopping()) break;
      let leader: string;
      try {
        leader = await this.parts.waitForLeader(Math.min(remainingMs, raftLimits.leaderWaitMs.value));
      } catch (error) {
        lastError = error;
        if (!mayHaveBeenProposed) throw error;
        continue;
      }
      try {
        return leader === this.parts.nodeId
          ? (await this.commitAsLeader(txn, remainingMs)).outcome
          : await this.commitThroughLeader(leader, txn, deadlineMs);
      } catch (error) {
        if (!(error instanceof AttemptFailed)) throw error;
        mayHaveBeenProposed ||= error.mayHaveBeenProposed;
        lastError = error.cause;
        await delay(
          Math.min(leaderRetryBackoffMs(attempt), Math.max(0, deadlineMs - this.parts.scheduler.monotonicMs())),
          this.parts.scheduler,
        );
      }
    }
    if (this.parts.isStopping() && !mayHaveBeenProposed) throw new NodeStoppingError(this.parts.nodeId);
    if (mayHaveBeenProposed)
      throw new ProposalOutcomeUnknownError(txn.txnId, `not confirmed within ${timeoutMs} ms`, { cause: lastError });
    throw new NoLeaderError(this.parts.nodeId, timeoutMs, { cause: lastError });
  }

  private async commitAsLeader(txn: Txn, remainingMs: number): Promise<AppliedTxn> {
    const { promise, cancel } = this.parts.proposeLocally(txn);
    let cancelTimer: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      cancelTimer = this.parts.scheduler.after(remainingMs, () => {
        cancel();
        reject(
          new ProposalOutcomeUnknownError(txn.txnId, `not applied within ${raftLimits.proposalTimeoutMs.value} ms`),
        );
      });
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (error) {
      if (error instanceof NotLeaderError) throw new AttemptFailed(false, { cause: error });
      if (error instanceof LeadershipLostError) throw new AttemptFailed(true, { cause: error });
      throw error;
    } finally {
      cancelTimer?.();
    }
  }

  private async commitThroughLeader(leader: string, txn: Txn, deadlineMs: number): Promise<TxnOutcome> {
    let result: raftq.cluster.TxnResult.$Properties;
    try {
      result = await this.forward(leader, txn);
    } catch (error) {
      this.parts.metrics.forwardedProposals.inc({ result: 'call-failed' });
      throw new AttemptFailed(true, { cause: error });
    }
    const outcome = outcomeFromWire(result);
    if (outcome === null) {
      const isNotLeader = result.kind === OutcomeKind.notLeader;
      this.parts.metrics.forwardedProposals.inc({ result: isNotLeader ? 'not-leader' : 'unknown' });
      throw new AttemptFailed(!isNotLeader, { cause: new NotLeaderError(leader, result.leaderHint ?? '') });
    }
    this.parts.metrics.forwardedProposals.inc({ result: outcome.kind });
    const entryIndex = Number(result.entryIndex);
    if (!(await this.parts.waitApplied(entryIndex, Math.max(1, deadlineMs - this.parts.scheduler.monotonicMs())))) {
      throw new ProposalOutcomeUnknownError(
        txn.txnId,
        `applied by the leader at index ${entryIndex} but not here in time`,
      );
    }
    return outcome;
  }

  private forward(leader: string, txn: Txn): Promise<raftq.cluster.TxnResult.$Properties> {
    return new Promise((resolve, reject) => {
      this.forwardQueue.push({ leader, txn, resolve, reject });
      this.pumpForwards();
    });
  }

  private pumpForwards(): void {
    while (this.forwardCallsInFlight < forwardCallsInFlightMax && this.forwardQueue.length > 0) {
      const leader = (this.forwardQueue[0] as QueuedForward).leader;
      const batch: QueuedForward[] = [];
      const rest: QueuedForward[] = [];
      let bytes = 0;
      for (const item of this.forwardQueue) {
        const size = txnSizeBytes(item.txn);
        const isFull =
          batch.length >= raftLimits.proposalBatchTxnsMax.value ||
          (batch.length > 0 && bytes + size > raftLimits.proposalBatchBytesMax.value);
        if (item.leader === leader && !isFull) {
          batch.push(item);
          bytes += size;
        } else {
          rest.push(item);
        }
      }
      this.forwardQueue = rest;
      this.forwardCallsInFlight += 1;
      void this.sendForwardBatch(leader, batch).finally(() => {
        this.forwardCallsInFlight -= 1;
        this.pumpForwards();
      });
    }
  }

  private async sendForwardBatch(leader: string, batch: QueuedForward[]): Promise<void> {
    try {
      const response = await this.parts.callPeer(
        leader,
        'forwardTxns',
        { groupId: this.parts.groupId, from: this.parts.nodeId, txns: batch.map((item) => txnToWire(item.txn)) },
        raftLimits.proposalTimeoutMs.value,
      );
      batch.forEach((item, i) => {
        const result = response.results[i];
        if (result === undefined)
          item.reject(new Error(`the leader answered ${response.results.length} of ${batch.length} forwarded txns`));
        else item.resolve(result);
      });
    } catch (error) {
      for (const item of batch) item.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The leader's side of a forward call: propose every txn and answer each with its outcome. */
  async serveForwarded(
    request: raftq.cluster.ForwardTxnsRequest,
  ): Promise<raftq.cluster.ForwardTxnsResponse.$Properties> {
    const timeoutMs = raftLimits.proposalTimeoutMs.value - raftLimits.forwardedProposalAnswerMarginMs.value;
    const results = await Promise.all(
      request.txns.map(async (wireTxn): Promise<raftq.cluster.TxnResult.$Properties> => {
        if (!this.parts.isLeader() || this.parts.isStopping())
          return { kind: OutcomeKind.notLeader, leaderHint: this.parts.leaderId() };
        const txn = txnFromWire(wireTxn);
        try {
          validateTxn(txn);
        } catch (error) {
          return { kind: OutcomeKind.unknown, leaderHint: this.parts.leaderId(), error: String(error) };
        }
        try {
          const applied = await this.commitAsLeader(txn, timeoutMs);
          return outcomeToWire(applied.outcome, applied.entryIndex);
        } catch (error) {
          if (error instanceof AttemptFailed && !error.mayHaveBeenProposed)
            return { kind: OutcomeKind.notLeader, leaderHint: this.parts.leaderId() };
          return {
            kind: OutcomeKind.unknown,
            leaderHint: this.parts.leaderId(),
            error: String(error instanceof AttemptFailed ? error.cause : error),
          };
        }
      }),
    );
    return { results };
  }
}
