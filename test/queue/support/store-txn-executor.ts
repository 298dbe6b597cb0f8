/**
 * The real storage stack behind the test hooks: an MVCC store on a memory engine, each commit
 * applied as one entry through the replicated apply step (OCC validation, txn id table, commit
 * timestamps), as a single-node cluster would.
 */
import { MemoryEngine } from '../../../src/storage/memory-engine.js';
import { MvccStore } from '../../../src/storage/mvcc-store.js';
import { applyEntries } from '../../../src/storage/txn-apply.js';
import type { ReadView, Txn, TxnOutcome } from '../../../src/storage/txn.js';
import { HookedTxnExecutor } from './hooked-txn-executor.js';

export class StoreTxnExecutor extends HookedTxnExecutor {
  private store: MvccStore | undefined;

  private async opened(): Promise<MvccStore> {
    this.store ??= await MvccStore.open(new MemoryEngine());
    return this.store;
  }

  protected async takeView(): Promise<ReadView> {
    return (await this.opened()).readView();
  }

  protected async applyTxn(txn: Txn): Promise<{ outcome: TxnOutcome; writtenKeys: readonly Uint8Array[] }> {
    const store = await this.opened();
    const result = await applyEntries(store, [{ index: store.appliedIndex + 1, leaderStampTs: this.clock.nowMs() * 1000, txns: [txn] }]);
    const outcome = result.outcomes[0]?.[0];
    if (outcome === undefined) throw new Error('the apply step returned no outcome');
    return { outcome, writtenKeys: result.writtenKeys };
  }
}
