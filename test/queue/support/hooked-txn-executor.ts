/**
 * The TxnExecutor queue tests run on: a ManualClock for time, plus hooks that stage races (run
 * code between a transaction's reads and its commit) and ambiguous failures (apply a commit but
 * lose its reply), and counters tests assert on. Two backings: `StoreTxnExecutor` applies through
 * the real MVCC store and OCC apply step (src/storage) on a memory engine; `ModelTxnExecutor`
 * (model-txn-executor.ts) is a few lines of obviously correct MVCC.
 */
import { ManualClock } from '../../../src/base/clock.js';
import { RetryableError } from '../../../src/base/errors.js';
import type {
  AppliedListener,
  KeyRange,
  KeyValue,
  ReadView,
  Txn,
  TxnExecutor,
  TxnOutcome,
  TxnWrite,
} from '../../../src/storage/txn.js';

export class CommitOutcomeUnknownError extends RetryableError {
  readonly code = 'CommitOutcomeUnknown';
}

export abstract class HookedTxnExecutor implements TxnExecutor {
  readonly clock: ManualClock;
  private readonly listeners = new Set<AppliedListener>();
  /** Every committed txn, in order. */
  readonly commits: Txn[] = [];
  conflicts = 0;
  /** Views taken so far: a long poll that re-scanned in a loop would show here. */
  viewCount = 0;
  /** Runs before each commit is validated; may commit other transactions first. */
  beforeCommit: ((txn: Txn) => Promise<void>) | undefined;
  /** Applies the next N commits without telling onApplied listeners (as a snapshot install would). */
  silentCommitsCount = 0;
  /** Applies the next N commits and then throws as if the reply had been lost. */
  loseRepliesCount = 0;
  private commitTail: Promise<unknown> = Promise.resolve();

  constructor(startMs = 1_700_000_000_000) {
    this.clock = new ManualClock(startMs);
  }

  /** A view at `atTs` (a past commit timestamp) or, when undefined, at the latest commit. */
  protected abstract takeView(atTs?: number): Promise<ReadView>;
  /**
   * When set, non-linearizable views are taken at this past commit timestamp, as on a follower
   * that has not yet applied the newest commits. Linearizable views always see the latest.
   */
  staleViewTs: number | undefined;
  /** Validates and applies one txn; called one at a time. */
  protected abstract applyTxn(txn: Txn): Promise<{ outcome: TxnOutcome; writes: readonly TxnWrite[] }>;

  nowMs(): number {
    return this.clock.nowMs();
  }

  /** Runs after each view is taken and before the caller gets it (to apply writes it will not see). */
  afterReadView: (() => Promise<void>) | undefined;

  async readView(options?: { linearizable: boolean }): Promise<ReadView> {
    this.viewCount++;
    const view = await this.takeView(options?.linearizable === false ? this.staleViewTs : undefined);
    const hook = this.afterReadView;
    if (hook !== undefined) await hook();
    return view;
  }

  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  async commit(txn: Txn): Promise<TxnOutcome> {
    const hook = this.beforeCommit;
    if (hook !== undefined) await hook(txn);
    const applied = this.commitTail.then(() => this.applyTxn(txn));
    this.commitTail = applied.catch(() => undefined);
    const { outcome, writes } = await applied;
    if (outcome.kind === 'committed') {
      this.commits.push(txn);
      if (this.silentCommitsCount > 0) this.silentCommitsCount--;
      else for (const listener of this.listeners) listener(writes, outcome.commitTsUs);
    } else if (outcome.kind === 'conflict') {
      this.conflicts++;
    }
    if (this.loseRepliesCount > 0) {
      this.loseRepliesCount--;
      throw new CommitOutcomeUnknownError('the reply was lost');
    }
    return outcome;
  }

  /** Live rows of a range at the latest commit, for assertions. */
  async liveRows(range: KeyRange): Promise<KeyValue[]> {
    const view = await this.takeView();
    try {
      return await view.scan(range, { limit: Number.MAX_SAFE_INTEGER });
    } finally {
      view.release();
    }
  }
}
