/**
 * The leader's side of proposing: transactions queue here between two turns of the Ready loop,
 * and each turn cuts them into entries (many transactions per entry) stamped with the cluster
 * clock. Stamps are microseconds, strictly increasing across leaders: a new leader continues above
 * the state's last commit timestamp and above every stamp in its log not yet applied here.
 */
import { ProposalDroppedError } from '../raft/errors.js';
import type { RawNode } from '../raft/raw-node.js';
import { EntryType } from '../raft/types.js';
import type { Txn } from '../storage/txn.js';
import type { ClusterClock } from './cluster-clock.js';
import { NotLeaderError } from './errors.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeMetrics } from './node-metrics.js';
import { ProposalBatcher } from './proposal-batcher.js';
import { decodeEntryPayload, encodeEntryPayload } from './state-apply.js';
import type { StateStore } from './state-store.js';
import type { TxnWaiters } from './txn-waiters.js';

export interface EntryProposerParts {
  readonly nodeId: string;
  readonly metrics: NodeMetrics;
  readonly clock: ClusterClock;
  readonly raw: RawNode;
  readonly logStore: LevelLogStore;
  /** The state database now (a snapshot install replaces it). */
  readonly state: () => StateStore;
  readonly txnWaiters: TxnWaiters;
}

export class EntryProposer {
  private readonly batcher = new ProposalBatcher();
  private lastStampTs: number;

  constructor(private readonly parts: EntryProposerParts) {
    this.lastStampTs = parts.state().lastCommitTs;
  }

  /** Queues a transaction for the next entry; its waiter hears of it at apply. */
  add(txn: Txn): void {
    this.batcher.add(txn);
  }

  /** Proposes everything queued; a proposal the core drops fails its waiters with NotLeaderError. */
  proposeQueued(): void {
    if (this.batcher.size === 0) return;
    const { metrics, raw, txnWaiters } = this.parts;
    for (const batch of this.batcher.drain()) {
      try {
        // Every queued txn passed validateTxn in TxnCommitter (commit, or serveForwarded) before it was added.
        raw.propose(encodeEntryPayload(this.nextStampTs(), batch, { areTxnsValidated: true }));
        metrics.proposedEntries.inc();
        metrics.proposals.inc({ result: 'proposed' }, batch.length);
      } catch (error) {
        if (!(error instanceof ProposalDroppedError)) throw error;
        metrics.proposals.inc({ result: 'dropped' }, batch.length);
        for (const txn of batch)
          txnWaiters.reject(txn.txnId, new NotLeaderError(this.parts.nodeId, error.leaderId, { cause: error }));
      }
    }
  }

  /** On becoming leader: continue above every stamp an earlier leader may have handed out. */
  continueStamps(): void {
    this.lastStampTs = Math.max(this.lastStampTs, this.parts.state().lastCommitTs, this.highestLoggedStampTs());
  }

  /** Entry stamps in µs of the cluster clock, strictly increasing across leaders (see continueStamps). */
  private nextStampTs(): number {
    this.lastStampTs = Math.max(Math.floor(this.parts.clock.nowMs() * 1000), this.lastStampTs + 1);
    return this.lastStampTs;
  }

  /** The highest stamp among log entries not yet applied here (a new leader continues above it). */
  private highestLoggedStampTs(): number {
    const { logStore } = this.parts;
    let highest = 0;
    const from = Math.max(this.parts.state().appliedIndex + 1, logStore.firstIndex());
    const to = logStore.lastIndex();
    if (from > to) return 0;
    for (const entry of logStore.entries(from, to + 1, Number.MAX_SAFE_INTEGER)) {
      if (entry.type !== EntryType.Normal || entry.data.byteLength === 0) continue;
      highest = Math.max(highest, decodeEntryPayload(entry.data).leaderStampTsUs);
    }
    return highest;
  }
}
