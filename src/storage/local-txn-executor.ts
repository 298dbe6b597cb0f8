/**
 * A TxnExecutor over one MVCC store, without Raft: what the queue layer's tests (and a
 * single-process embedding) run on. It behaves like a one-node cluster: commits are serialized,
 * each is applied as a one-txn entry stamped with the injected clock, its outcome comes from the
 * same apply step the cluster uses, and onApplied listeners hear of every applied write.
 */
import type { Clock } from '../base/clock.js';
import type { MvccStore } from './mvcc-store.js';
import { decodeTxnBatch, encodeTxnBatch, validateTxn } from './txn-codec.js';
import { applyEntries, defaultTxnApplyRules, type TxnApplyRules } from './txn-apply.js';
import type { AppliedListener, ReadView, Txn, TxnExecutor, TxnOutcome, TxnWrite } from './txn.js';

export interface LocalTxnExecutorOptions {
  readonly store: MvccStore;
  readonly clock: Clock;
  readonly rules?: TxnApplyRules;
  /** Sync every apply batch (default false, like the cluster's state store). */
  readonly sync?: boolean;
  /**
   * Send each txn through the entry codec before applying it (default true), as the cluster does,
   * so that a txn the codec refuses, or a caller reusing a buffer after commit, shows up in tests.
   */
  readonly isEncodingRoundTrip?: boolean;
  /** Told the bytes of each entry a txn was encoded into (isEncodingRoundTrip): what a Raft log would hold of it. */
  readonly onEntryEncoded?: (entryBytes: number) => void;
}

export class LocalTxnExecutor implements TxnExecutor {
  private readonly listeners = new Set<AppliedListener>();
  private commitTail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LocalTxnExecutorOptions) {}

  /** Every view is linearizable here: there is one replica and it has applied everything committed. */
  async readView(_options: { linearizable: boolean }): Promise<ReadView> {
    return this.options.store.readView();
  }

  /**
   * Applies `txn` once every earlier commit has been applied. A listener that throws makes this
   * promise reject although the txn was applied, like any ambiguous failure: a retry with the
   * same txnId is answered with the recorded outcome.
   */
  commit(txn: Txn): Promise<TxnOutcome> {
    validateTxn(txn);
    const result = this.commitTail.then(() => this.applyOne(txn));
    this.commitTail = result.catch(() => undefined);
    return result;
  }

  nowMs(): number {
    return this.options.clock.nowMs();
  }

  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private async applyOne(txn: Txn): Promise<TxnOutcome> {
    const { store } = this.options;
    const leaderStampTsUs = Math.floor(this.options.clock.nowMs() * 1000);
    let entryTxn = txn;
    if (this.options.isEncodingRoundTrip ?? true) {
      const entry = encodeTxnBatch({ leaderStampTsUs, txns: [txn] });
      this.options.onEntryEncoded?.(entry.byteLength);
      entryTxn = decodeTxnBatch(entry).txns[0] as Txn;
    }
    const result = await applyEntries(store, [{ index: store.appliedIndex + 1, leaderStampTsUs, txns: [entryTxn] }], {
      rules: this.options.rules ?? defaultTxnApplyRules,
      sync: this.options.sync ?? false,
    });
    const outcome = result.outcomes[0]?.[0] as TxnOutcome;
    if (result.writes.length > 0) {
      const failures: unknown[] = [];
      for (const listener of [...this.listeners]) {
        try {
          listener(result.writes, result.lastCommitTs);
        } catch (err) {
          failures.push(err);
        }
      }
      if (failures.length > 0)
        throw new AggregateError(failures, 'An onApplied listener failed after the transaction was applied');
    }
    return outcome;
  }
}
