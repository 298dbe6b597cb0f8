/**
 * A small, obviously correct TxnExecutor for queue tests: every version of every key in memory,
 * OCC validation exactly as DESIGN.md §3 states it, a ManualClock for time. Hooks let a test run
 * code between a transaction's reads and its commit (to stage races) and make a commit apply but
 * report an outcome-unknown failure (to stage ambiguous retries).
 */
import { ManualClock } from '../../../src/base/clock.js';
import { RetryableError } from '../../../src/base/errors.js';
import { compareBytes } from '../../../src/storage/key-codec.js';
import type { KeyRange, KeyValue, ReadView, Txn, TxnExecutor, TxnOutcome } from '../../../src/storage/txn.js';

interface Version {
  readonly ts: number;
  readonly value: Uint8Array | undefined;
}

export class CommitOutcomeUnknownError extends RetryableError {
  readonly code = 'CommitOutcomeUnknown';
}

const hex = (key: Uint8Array) => Buffer.from(key).toString('hex');

export class ModelTxnExecutor implements TxnExecutor {
  readonly clock: ManualClock;
  private readonly versions = new Map<string, { key: Uint8Array; versions: Version[] }>();
  private readonly appliedTxns = new Map<string, TxnOutcome>();
  private readonly listeners = new Set<(keys: readonly Uint8Array[]) => void>();
  private lastCommitTs = 0;
  commits: Txn[] = [];
  conflicts = 0;
  /** Runs before each commit is validated; may commit other transactions first. */
  beforeCommit: ((txn: Txn) => Promise<void>) | undefined;
  /** Applies the next N commits and then throws as if the reply had been lost. */
  loseRepliesCount = 0;

  constructor(startMs = 1_700_000_000_000) {
    this.clock = new ManualClock(startMs);
  }

  nowMs(): number {
    return this.clock.nowMs();
  }

  /** Views taken so far: a long poll that re-scanned in a loop would show here. */
  viewCount = 0;

  async readView(): Promise<ReadView> {
    this.viewCount++;
    const ts = this.lastCommitTs;
    return {
      ts,
      get: async (key) => this.valueAt(hex(key), ts),
      scan: async (range, options) => this.scanAt(range, ts, options),
      release: () => {},
    };
  }

  onApplied(listener: (keys: readonly Uint8Array[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  async commit(txn: Txn): Promise<TxnOutcome> {
    const hook = this.beforeCommit;
    if (hook !== undefined) await hook(txn);
    const outcome = this.apply(txn);
    if (this.loseRepliesCount > 0) {
      this.loseRepliesCount--;
      throw new CommitOutcomeUnknownError('the reply was lost');
    }
    return outcome;
  }

  /** Rows of the live store in a range (latest versions), for assertions. */
  liveRows(range: KeyRange): KeyValue[] {
    return this.scanAt(range, this.lastCommitTs, { limit: Number.MAX_SAFE_INTEGER });
  }

  private apply(txn: Txn): TxnOutcome {
    const previous = this.appliedTxns.get(txn.txnId);
    if (previous !== undefined) return previous;
    let outcome: TxnOutcome | undefined;
    for (const key of [...txn.readKeys, ...txn.writes.map((w) => w.key)]) {
      const entry = this.versions.get(hex(key));
      const newest = entry?.versions[entry.versions.length - 1];
      if (newest !== undefined && newest.ts > txn.startTs) {
        outcome = { kind: 'conflict', key };
        break;
      }
    }
    if (outcome === undefined) {
      const commitTs = Math.max(this.lastCommitTs + 1, txn.nowMs * 1000);
      this.lastCommitTs = commitTs;
      for (const write of txn.writes) {
        const id = hex(write.key);
        let entry = this.versions.get(id);
        if (entry === undefined) {
          entry = { key: write.key, versions: [] };
          this.versions.set(id, entry);
        }
        entry.versions.push({ ts: commitTs, value: write.kind === 'put' ? write.value : undefined });
      }
      outcome = { kind: 'committed', commitTs };
      this.commits.push(txn);
      const keys = txn.writes.map((w) => w.key);
      for (const listener of this.listeners) listener(keys);
    } else {
      this.conflicts++;
    }
    this.appliedTxns.set(txn.txnId, outcome);
    return outcome;
  }

  private valueAt(id: string, ts: number): Uint8Array | undefined {
    const entry = this.versions.get(id);
    if (entry === undefined) return undefined;
    for (let i = entry.versions.length - 1; i >= 0; i--) {
      const version = entry.versions[i];
      if (version !== undefined && version.ts <= ts) return version.value;
    }
    return undefined;
  }

  private scanAt(range: KeyRange, ts: number, options: { limit: number; reverse?: boolean }): KeyValue[] {
    const rows: KeyValue[] = [];
    for (const [id, entry] of this.versions) {
      if (compareBytes(entry.key, range.gte) < 0 || compareBytes(entry.key, range.lt) >= 0) continue;
      const value = this.valueAt(id, ts);
      if (value !== undefined) rows.push({ key: entry.key, value });
    }
    rows.sort((a, b) => compareBytes(a.key, b.key));
    if (options.reverse === true) rows.reverse();
    return rows.slice(0, options.limit);
  }
}
