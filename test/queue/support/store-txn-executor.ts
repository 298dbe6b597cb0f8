/**
 * The storage layer's LocalTxnExecutor (an MVCC store on a memory engine, each commit applied as a
 * one-txn entry through the replicated apply step and the entry codec) behind the test hooks.
 */
import { LocalTxnExecutor } from '../../../src/storage/local-txn-executor.js';
import { MemoryEngine } from '../../../src/storage/memory-engine.js';
import { MvccStore } from '../../../src/storage/mvcc-store.js';
import type { ReadView, Txn, TxnOutcome, TxnWrite } from '../../../src/storage/txn.js';
import { HookedTxnExecutor } from './hooked-txn-executor.js';

export class StoreTxnExecutor extends HookedTxnExecutor {
  private local: LocalTxnExecutor | undefined;
  private store: MvccStore | undefined;
  /** Ids of the txns applied so far: a repeat is answered with the first outcome, its writes not applied. */
  private readonly appliedTxnIds = new Set<string>();
  private lastWrites: readonly TxnWrite[] = [];

  private async opened(): Promise<LocalTxnExecutor> {
    if (this.local === undefined) {
      const store = await MvccStore.open(new MemoryEngine());
      const local = new LocalTxnExecutor({ store, clock: this.clock });
      this.store ??= store;
      // The local executor tells its listeners synchronously inside the commit: remember the writes
      // so the hooks above can fan them out (or hold them back) themselves.
      local.onApplied((writes) => {
        this.lastWrites = writes;
      });
      this.local ??= local;
    }
    return this.local;
  }

  protected async takeView(atTs?: number): Promise<ReadView> {
    if (atTs !== undefined) throw new Error('StoreTxnExecutor has no stale views; use the model executor');
    return (await this.opened()).readView({ linearizable: true });
  }

  protected async applyTxn(txn: Txn): Promise<{ outcome: TxnOutcome; writes: readonly TxnWrite[] }> {
    const local = await this.opened();
    if (!this.appliedTxnIds.has(txn.txnId)) await this.checkVouches(txn);
    this.lastWrites = [];
    const outcome = await local.commit(txn);
    this.appliedTxnIds.add(txn.txnId);
    return { outcome, writes: outcome.kind === 'committed' ? this.lastWrites : [] };
  }

  /**
   * The apply step trusts a transaction's vouches without reading (TxnWrite.isNewKey, isLiveKey,
   * sameCommitAsWriteBefore): a false one in a transaction that commits must fail the test.
   */
  private async checkVouches(txn: Txn): Promise<void> {
    const { store } = this;
    if (store === undefined || !txn.writes.some(isVouched)) return;
    const keys = [...txn.writes.map((write) => write.key), ...txn.readKeys];
    const newest = await store.latestVersionsOfKeys(keys);
    // A txn that will conflict may hold vouches its stale view made: they are never applied.
    if (newest.some((version) => version !== undefined && version.commitTsUs > txn.startTsUs)) return;
    txn.writes.forEach((write, at) => {
      const version = newest[at];
      const id = Buffer.from(write.key).toString('hex');
      if (write.kind === 'put' && write.isNewKey === true && version !== undefined)
        throw new Error(`a put vouched its key new, but the key has versions: ${id}`);
      if (write.kind === 'delete' && write.isLiveKey === true && version?.isValue !== true)
        throw new Error(`a delete vouched its key live, but the key holds no value: ${id}`);
      if (
        write.kind === 'delete' &&
        write.sameCommitAsWriteBefore !== undefined &&
        version?.commitTsUs !== newest[at - write.sameCommitAsWriteBefore]?.commitTsUs
      )
        throw new Error(`a delete vouched its key's version shares a commit, but it does not: ${id}`);
    });
  }
}

function isVouched(write: TxnWrite): boolean {
  return write.kind === 'put' ? write.isNewKey === true : write.isLiveKey === true;
}
