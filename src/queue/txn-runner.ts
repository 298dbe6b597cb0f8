/**
 * The retry loop every queue operation runs in. Each attempt takes a fresh view, rebuilds the
 * whole transaction from what it reads there (docs/TRAPS.md, trap 4: meta, generation, dedup id, delay and size
 * limits are re-derived every time) and commits with startTsUs = the view's ts (docs/TRAPS.md, trap 1).
 *
 * A conflict is a definite failure: the next attempt is a new transaction with a new txn id. Only
 * an outcome-unknown commit (a retryable error thrown by the executor: timeout, leader change)
 * is re-proposed unchanged with the same txn id, which the apply step answers idempotently.
 */
import { isRaftqError, isRetryable } from '../base/errors.js';
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
  /**
   * Called with the view of the attempt whose plan became the operation's answer (it committed,
   * or had nothing to write), before the answer is returned: what the plan noted against that
   * view (queue-activity.ts) happened; what earlier, conflicting attempts noted did not.
   */
  readonly onSettled?: (view: ReadView) => void;
  /** Called for each attempt of `operation` that did not settle and is built again, with why. */
  readonly onRetry?: (operation: string, reason: string) => void;
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
   *
   * The first attempt reads a possibly stale local view: every key it read is validated at
   * apply, so for a plan that writes, staleness can only cost a conflict. An answer that writes
   * nothing (a stale receipt handle's no-op delete) or an error (QueueDoesNotExist for a queue
   * created a moment ago on another node) never reaches the apply step, so nothing would
   * validate it: such an answer is derived again on a linearizable view before it is given.
   * Only an operation for which a stale answer is harmless (an empty receive, which the caller
   * may simply repeat) opts out with `staleAnswerWithoutWritesIsAcceptable`. `beforeEachView`
   * runs right before each attempt's view is requested.
   *
   * `newTxnId` replaces the runner's id source for this operation's commits. An operation that
   * may run again after its answer was lost (a send a follower forwarded again to a new leader)
   * derives them from its own idempotency key, so its n-th commit carries the same txn id in every
   * run: the apply step answers a repeated id with its first outcome, and a commit that already
   * happened is answered "committed" instead of writing a second time.
   */
  async run<T>(
    operation: string,
    build: (attempt: TxnAttempt) => Promise<TxnPlan<T>>,
    options: {
      staleAnswerWithoutWritesIsAcceptable?: boolean;
      beforeEachView?: () => void;
      newTxnId?: () => string;
    } = {},
  ): Promise<T> {
    const attemptsMax = raftqLimits.queueTxnAttemptsMax.value;
    let lastOutcome = 'none';
    let mustReadLinearizably = false;
    for (let attempt = 0; attempt < attemptsMax; attempt++) {
      // The previous attempt did not settle, and this one builds it again.
      if (attempt > 0) this.options.onRetry?.(operation, lastOutcome);
      // Retries read linearizably so they see whatever beat them.
      const isLinearizable = attempt > 0 || mustReadLinearizably;
      options.beforeEachView?.();
      const view = await this.options.executor.readView({ linearizable: isLinearizable });
      const nowMs = this.options.executor.nowMs();
      let plan: TxnPlan<T>;
      try {
        plan = await build({ view, nowMs, attempt });
      } catch (err) {
        if (isLinearizable || !isRaftqError(err)) throw err;
        mustReadLinearizably = true;
        lastOutcome = 'stale-error';
        continue;
      } finally {
        view.release();
      }
      if (plan.writes.length === 0) {
        if (isLinearizable || options.staleAnswerWithoutWritesIsAcceptable === true) {
          this.options.onSettled?.(view);
          return plan.result;
        }
        mustReadLinearizably = true;
        lastOutcome = 'stale-answer';
        continue;
      }
      const outcome = await this.commitOnce({
        txnId: (options.newTxnId ?? this.options.newId)(),
        startTsUs: view.ts,
        nowMs,
        readKeys: plan.readKeys,
        writes: plan.writes,
      });
      if (outcome.kind === 'committed') {
        this.options.onSettled?.(view);
        return plan.result;
      }
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
