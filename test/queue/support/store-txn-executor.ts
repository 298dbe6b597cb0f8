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
  private lastWrites: readonly TxnWrite[] = [];

  private async opened(): Promise<LocalTxnExecutor> {
    if (this.local === undefined) {
      const local = new LocalTxnExecutor({ store: await MvccStore.open(new MemoryEngine()), clock: this.clock });
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
    this.lastWrites = [];
    const outcome = await local.commit(txn);
    return { outcome, writes: outcome.kind === 'committed' ? this.lastWrites : [] };
  }
}
