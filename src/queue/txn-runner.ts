/**
 * The retry loop every queue operation runs in. Each attempt takes a fresh view, rebuilds the
 * whole transaction from what it reads there (trap 4: meta, generation, dedup id, delay and size
 * limits are re-derived every time) and commits with startTs = the view's ts (trap 1).
 *
 * A conflict is a definite failure: the next attempt is a new transaction with a new txn id. Only
 * an outcome-unknown commit (a retryable error thrown by the executor: timeout, leader change)
 * is re-proposed unchanged with the same txn id, which the apply step answers idempotently.
 */
import { isRetryable } from '../base/errors.js';
import { raftqLimits } from '../base/limits.js';
import type { ReadView, TxnExecutor, TxnOutcome, TxnWrite } from '../storage/txn.js';
import { TxnRetriesExhaustedError } from './errors.js';

export interface TxnPlan<T> {
  readonly readKeys: readonly Uint8Array[];
  readonly writes: readonly TxnWrite[];
  /** What the operation answers if this transaction commits (or if it has nothing to write). */
  readonly result: T;
}

export interface TxnAttempt {
  readonly view: ReadView;
  readonly nowMs: number;
  readonly attempt: number;
}

export interface TxnRunnerOptions {
  readonly executor: TxnExecutor;
  readonly newId: () => string;
}

export class TxnRunner {
  constructor(private readonly options: TxnRunnerOptions) {}

  /** Runs a read-only operation on one linearizable view. */
  async read<T>(body: (view: ReadView, nowMs: number) => Promise<T>): Promise<T> {
    const view = await this.options.executor.readView({ linearizable: true });
    try {
      return await body(view, this.options.executor.nowMs());
    } finally {
      view.release();
    }
  }

  /**
   * Builds and commits until one attempt commits or has nothing to write. `build` may throw an
   * operating error (QueueDoesNotExist, …): that ends the operation.
   */
  async run<T>(operation: string, build: (attempt: TxnAttempt) => Promise<TxnPlan<T>>): Promise<T> {
    const attemptsMax = raftqLimits.queueTxnAttemptsMax.value;
    let lastOutcome = 'none';
    for (let attempt = 0; attempt < attemptsMax; attempt++) {
      // The first attempt may read a slightly stale local view: every key it read is validated
      // at apply, so staleness can only cost a conflict. Retries read linearizably so they see
      // whatever beat them.
      const view = await this.options.executor.readView({ linearizable: attempt > 0 });
      const nowMs = this.options.executor.nowMs();
      let plan: TxnPlan<T>;
      try {
        plan = await build({ view, nowMs, attempt });
      } finally {
        view.release();
      }
      if (plan.writes.length === 0) return plan.result;
      const outcome = await this.commitOnce({ txnId: this.options.newId(), startTs: view.ts, nowMs, readKeys: plan.readKeys, writes: plan.writes });
      if (outcome.kind === 'committed') return plan.result;
      lastOutcome = outcome.kind;
    }
    throw new TxnRetriesExhaustedError(operation, attemptsMax, lastOutcome);
  }

  private async commitOnce(txn: Parameters<TxnExecutor['commit']>[0]): Promise<TxnOutcome> {
    const retriesMax = raftqLimits.queueTxnCommitRetriesMax.value;
    for (let retry = 0; ; retry++) {
      try {
        return await this.options.executor.commit(txn);
      } catch (err) {
        if (!isRetryable(err) || retry + 1 >= retriesMax) throw err;
      }
    }
  }
}
