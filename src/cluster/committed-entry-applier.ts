/**
 * Applies the entries a Ready hands over as committed: runs of normal entries go to the MVCC store
 * as one batch each, conf change entries go to the core and to the recorded membership. Then it
 * tells everyone who waits on apply: the proposers of each transaction, the waiters for an applied
 * index, the state observers and the onApplied listeners (long polls). Runs inside the Ready loop.
 */
import type { Logger } from 'pino';
import { decodeConfChange } from '../raft/conf-change.js';
import type { RawNode } from '../raft/raw-node.js';
import { EntryType, type Entry } from '../raft/types.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeMetrics } from './node-metrics.js';
import { applyEntriesToStore, takeEntryPayload, type EntryToApply } from './state-apply.js';
import type { StateObserver } from './state-observer.js';
import type { StateStore } from './state-store.js';
import type { AppliedListener } from '../storage/txn.js';
import type { AppliedIndexWaiters, TxnWaiters } from './txn-waiters.js';

export interface CommittedEntryApplierParts {
  readonly nodeId: string;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  readonly raw: RawNode;
  readonly logStore: LevelLogStore;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly txnWaiters: TxnWaiters;
  readonly appliedWaiters: AppliedIndexWaiters;
  readonly stateObservers: ReadonlySet<StateObserver>;
  /** After a conf change was recorded: points the transport at the members as they are now. */
  readonly refreshPeers: () => void;
  /** After a conf change was recorded: the node's leadership and membership listeners. */
  readonly notifyMembershipListeners: () => void;
}

const utf8Decoder = new TextDecoder();

export class CommittedEntryApplier {
  private readonly appliedListeners = new Set<AppliedListener>();

  constructor(private readonly parts: CommittedEntryApplierParts) {}

  /** Registers a listener of the writes of every applied run; returns its removal. */
  onApplied(listener: AppliedListener): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  async applyCommitted(entries: readonly Entry[]): Promise<void> {
    let run: EntryToApply[] = [];
    for (const entry of entries) {
      if (entry.type === EntryType.ConfChange) {
        await this.applyRun(run);
        run = [];
        await this.applyConfChangeEntry(entry);
        continue;
      }
      // After a snapshot install the state may already include entries the log still delivers.
      if (entry.index <= this.parts.state().appliedIndex) continue;
      if (entry.data.byteLength === 0) run.push({ index: entry.index, leaderStampTsUs: 0, txns: [] });
      else run.push({ index: entry.index, ...takeEntryPayload(entry.data) });
    }
    await this.applyRun(run);
  }

  private async applyRun(run: readonly EntryToApply[]): Promise<void> {
    if (run.length === 0) return;
    const { metrics, txnWaiters, logger } = this.parts;
    const applied = await applyEntriesToStore(this.parts.state().mvcc, run);
    for (const entry of applied.entries) {
      for (const { txn, outcome } of entry.results) {
        metrics.appliedTxns.inc({ outcome: outcome.kind });
        txnWaiters.resolve(txn.txnId, { outcome, entryIndex: entry.index });
      }
    }
    this.parts.appliedWaiters.notify();
    for (const observer of this.parts.stateObservers)
      observer.onApplied({ liveKeyChanges: applied.liveKeyChanges, versionsWritten: applied.versionsWritten });
    // Only what was written: a repeated txn id answered "committed" from the txn-id table wrote
    // nothing, and a queue index that heard its writes again would list a message claimed or
    // deleted since as new.
    const { writes } = applied;
    if (writes.length > 0) {
      for (const listener of this.appliedListeners) {
        try {
          listener(writes, applied.lastCommitTsUs);
        } catch (error) {
          logger.error({ err: error }, 'an onApplied listener threw');
        }
      }
    }
  }

  private async applyConfChangeEntry(entry: Entry): Promise<void> {
    const { logStore, logger } = this.parts;
    const change = decodeConfChange(entry.data);
    const membership = logStore.currentMembership();
    if (entry.index > membership.index) {
      const confState = this.parts.raw.applyConfChange(change);
      const addresses = { ...membership.addresses };
      const announced = utf8Decoder.decode(change.context);
      if (change.kind === 'removeNode') delete addresses[change.nodeId];
      else if (announced !== '') addresses[change.nodeId] = announced;
      // Membership first, then the state's applied index: a crash between them replays the entry,
      // and the replay skips the conf change because membership.index already covers it.
      await logStore.recordMembership({ confState, index: entry.index, addresses });
      this.parts.refreshPeers();
      logger.info(
        {
          index: entry.index,
          change: change.kind,
          nodeId: change.nodeId,
          voters: confState.voters,
          learners: confState.learners,
        },
        'membership changed',
      );
      if (change.kind === 'removeNode' && change.nodeId === this.parts.nodeId)
        logger.warn('this node was removed from the cluster');
      this.parts.notifyMembershipListeners();
    }
    if (entry.index > this.parts.state().appliedIndex)
      await this.applyRun([{ index: entry.index, leaderStampTsUs: 0, txns: [] }]);
  }
}
