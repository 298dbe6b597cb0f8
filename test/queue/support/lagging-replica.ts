/**
 * One node's view of a replicated store, for tests with several QueueService instances (several
 * nodes) over one ModelTxnExecutor (the log they all apply). Each replica has applied the log up
 * to its own point: its non-linearizable views are taken there, and its onApplied listeners hear
 * of commits only when it catches up, as on a follower that lags. A linearizable view, and the
 * end of each of its own commits, catch it up first (a commit resolves once this replica applied
 * it). Every committed FIFO claim (a receive-state row it writes) is checked against the state it committed on: a message of a
 * group may be claimed only together with every earlier undeleted message of that group.
 */
import { decodeKey } from '../../../src/storage/key-codec.js';
import type { AppliedListener, ReadView, Txn, TxnExecutor, TxnOutcome, TxnWrite } from '../../../src/storage/txn.js';
import { GenerationKeys } from '../../../src/queue/layout/key-layout.js';
import { decodeMessageRecord } from '../../../src/queue/message-record.js';
import { decodeReceiveState } from '../../../src/queue/layout/receive-state.js';
import type { ModelTxnExecutor } from './model-txn-executor.js';

const decoder = new TextDecoder();

interface ClaimWrite {
  readonly messageId: string;
  readonly groupId: string;
  readonly sequence: bigint;
  readonly keys: GenerationKeys;
  readonly partition: number;
}

export class LaggingReplica implements TxnExecutor {
  appliedTs: number;
  private readonly listeners = new Set<AppliedListener>();
  private unheard: Array<{ writes: readonly TxnWrite[]; appliedTsUs: number }> = [];

  constructor(
    readonly log: ModelTxnExecutor,
    /** FIFO group-lock violations seen in committed claims, as sentences. */
    readonly violations: string[],
  ) {
    this.appliedTs = log.latestCommitTs;
    log.onApplied((writes, appliedTsUs) => this.unheard.push({ writes, appliedTsUs }));
  }

  /** Applies everything committed so far: views see it, listeners hear of it. */
  catchUp(): void {
    const batches = this.unheard;
    this.unheard = [];
    this.appliedTs = this.log.latestCommitTs;
    for (const { writes, appliedTsUs } of batches) for (const listener of this.listeners) listener(writes, appliedTsUs);
  }

  async readView(options: { linearizable: boolean }): Promise<ReadView> {
    if (options.linearizable) this.catchUp();
    return this.viewAt(this.appliedTs);
  }

  async commit(txn: Txn): Promise<TxnOutcome> {
    const outcome = await this.log.commit(txn);
    if (outcome.kind === 'committed') await this.checkFifoClaims(txn, outcome.commitTsUs);
    this.catchUp();
    return outcome;
  }

  nowMs(): number {
    return this.log.nowMs();
  }

  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private viewAt(ts: number): Promise<ReadView> {
    // The model takes non-linearizable views at staleViewTs; the argument is read synchronously.
    const saved = this.log.staleViewTs;
    this.log.staleViewTs = ts;
    const view = this.log.readView({ linearizable: false });
    this.log.staleViewTs = saved;
    return view;
  }

  private async checkFifoClaims(txn: Txn, commitTsUs: number): Promise<void> {
    const view = await this.viewAt(commitTsUs - 1);
    const claims = await claimsOf(txn, view);
    if (claims.length === 0) return;
    const claimedIds = new Set(claims.map((c) => c.messageId));
    for (const claim of claims) {
      const rows = await view.scan(claim.keys.groupRange(claim.partition, claim.groupId), {
        limit: Number.MAX_SAFE_INTEGER,
      });
      for (const row of rows) {
        const sequence = decodeKey(row.key).at(-1) as bigint;
        if (sequence >= claim.sequence) break;
        const earlierId = decoder.decode(row.value);
        if (claimedIds.has(earlierId)) continue;
        this.violations.push(
          `${claim.groupId}: ${claim.sequence} was claimed while ${sequence} of the same group was not deleted`,
        );
      }
    }
  }
}

/**
 * The FIFO messages a txn claims: receive-state rows it writes with a receipt token minted at its
 * nowMs (a claim never rewrites the data row), with group and sequence from the data row as the
 * txn found it.
 */
async function claimsOf(txn: Txn, view: ReadView): Promise<ClaimWrite[]> {
  const claims: ClaimWrite[] = [];
  for (const write of txn.writes) {
    if (write.kind !== 'put') continue;
    const tuple = decodeKey(write.key);
    if (tuple[0] !== 'q' || tuple[2] !== 'g' || tuple[4] !== 'state') continue;
    const { state } = decodeReceiveState(write.value);
    if (state.receiptToken === undefined || state.claimedAtMs !== txn.nowMs) continue;
    const keys = new GenerationKeys(String(tuple[1]), Number(tuple[3]));
    const dataBytes = await view.get(keys.data(Number(tuple[5]), String(tuple[6])));
    if (dataBytes === undefined) continue;
    const record = decodeMessageRecord(dataBytes);
    if (record.messageGroupId === undefined || record.sequenceNumber === undefined) continue;
    claims.push({
      messageId: record.messageId,
      groupId: record.messageGroupId,
      sequence: BigInt(record.sequenceNumber),
      keys,
      partition: record.partition,
    });
  }
  return claims;
}
