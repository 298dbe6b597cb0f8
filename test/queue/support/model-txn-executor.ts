/**
 * A small, obviously correct MVCC + OCC model (docs/architecture/storage.md) behind the test hooks: every version
 * of every key in memory.
 */
import { compareBytes } from '../../../src/storage/key-codec.js';
import type { KeyRange, KeyValue, ReadView, Txn, TxnOutcome, TxnWrite } from '../../../src/storage/txn.js';
import { HookedTxnExecutor } from './hooked-txn-executor.js';

interface Version {
  readonly ts: number;
  readonly value: Uint8Array | undefined;
}

const hex = (key: Uint8Array) => Buffer.from(key).toString('hex');

export class ModelTxnExecutor extends HookedTxnExecutor {
  private readonly versions = new Map<string, { key: Uint8Array; versions: Version[] }>();
  private readonly appliedTxns = new Map<string, TxnOutcome>();
  private lastCommitTs = 0;

  /** The newest commit timestamp, for tests that pin a stale view before it. */
  get latestCommitTs(): number {
    return this.lastCommitTs;
  }

  protected async takeView(atTs?: number): Promise<ReadView> {
    const ts = atTs ?? this.lastCommitTs;
    return {
      ts,
      get: async (key) => this.valueAt(hex(key), ts),
      getMany: async (keys) => keys.map((key) => this.valueAt(hex(key), ts)),
      scan: async (range, options) => this.scanAt(range, ts, options),
      release: () => {},
    };
  }

  protected async applyTxn(txn: Txn): Promise<{ outcome: TxnOutcome; writes: readonly TxnWrite[] }> {
    const previous = this.appliedTxns.get(txn.txnId);
    if (previous !== undefined) return { outcome: previous, writes: [] };
    let outcome: TxnOutcome | undefined;
    for (const key of [...txn.readKeys, ...txn.writes.map((w) => w.key)]) {
      const entry = this.versions.get(hex(key));
      const newest = entry?.versions[entry.versions.length - 1];
      if (newest !== undefined && newest.ts > txn.startTsUs) {
        outcome = { kind: 'conflict', key };
        break;
      }
    }
    let writes: readonly TxnWrite[] = [];
    if (outcome === undefined) {
      const commitTsUs = Math.max(this.lastCommitTs + 1, txn.nowMs * 1000);
      this.lastCommitTs = commitTsUs;
      const newestTsBefore = txn.writes.map((write) => this.newestTs(hex(write.key)));
      txn.writes.forEach((write, at) => {
        const id = hex(write.key);
        let entry = this.versions.get(id);
        // The apply step trusts a new-key vouch without reading: a wrong one must fail the test.
        if (write.kind === 'put' && write.isNewKey === true && entry !== undefined)
          throw new Error(`a put vouched its key new, but the key has versions: ${id}`);
        // Likewise a live-key vouch: the key's newest version must be a value.
        if (
          write.kind === 'delete' &&
          write.isLiveKey === true &&
          entry?.versions[entry.versions.length - 1]?.value === undefined
        )
          throw new Error(`a delete vouched its key live, but the key holds no value: ${id}`);
        // And a same-commit vouch: the key's newest version shares its commit with the earlier write's key's.
        if (
          write.kind === 'delete' &&
          write.sameCommitAsWriteBefore !== undefined &&
          newestTsBefore[at] !== newestTsBefore[at - write.sameCommitAsWriteBefore]
        )
          throw new Error(`a delete vouched its key's version shares a commit, but it does not: ${id}`);
        if (entry === undefined) {
          entry = { key: write.key, versions: [] };
          this.versions.set(id, entry);
        }
        entry.versions.push({ ts: commitTsUs, value: write.kind === 'put' ? write.value : undefined });
      });
      outcome = { kind: 'committed', commitTsUs };
      writes = txn.writes;
    }
    this.appliedTxns.set(txn.txnId, outcome);
    return { outcome, writes };
  }

  private newestTs(id: string): number | undefined {
    const versions = this.versions.get(id)?.versions;
    return versions?.[versions.length - 1]?.ts;
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
