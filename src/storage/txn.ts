/**
 * Transactions as they travel from the gateway through Raft to every replica's apply step.
 * Keys are encoded tuples (key-codec.ts); timestamps are safe integers.
 *
 * Timestamps: a commitTsUs counts in microseconds of the leader's cluster clock
 * (`commitTsUs = max(lastCommitTs + 1, leaderStampTsUs)`), so up to 1000 transactions per millisecond
 * stay close to wall time and the value stays below 2^53 for the next 200 years.
 */

export type TxnWrite =
  | {
      readonly kind: 'put';
      readonly key: Uint8Array;
      readonly value: Uint8Array;
      /**
       * The proposer vouches that the key has never had a version: it contains an id minted for
       * this operation (a new message's id). The apply step then neither reads the key's newest
       * version nor checks it for a conflict, which saves a LevelDB seek per such key. Every
       * replica trusts the same flag, so outcomes stay identical; a false claim would only
       * miscount live rows. Never set it on a key that a retry with another id could also write.
       */
      readonly isNewKey?: true;
    }
  | {
      readonly kind: 'delete';
      readonly key: Uint8Array;
      /**
       * The proposer vouches that the key holds a value now, and that every transaction that
       * changes it also changes one of this transaction's read keys (a message's vis, age or
       * group row lives and dies with its data row, which the delete reads). The apply step then
       * neither reads the key's newest version nor checks it for a conflict: the read keys catch
       * every rival. This saves a LevelDB seek per such key once a backlog outgrows the
       * newest-version cache. Every replica trusts the same flag, so outcomes stay identical; a
       * false claim would only miscount live rows.
       */
      readonly isLiveKey?: true;
      /**
       * With isLiveKey only: the proposer vouches that the key's newest version was committed by
       * the same transaction as the newest version of the key of the write this many places
       * before it in `writes`, a write the apply step looks up (a message's vis, age and group
       * rows are written by the send that wrote its data row, and never again). The garbage
       * ledger then knows the version this delete hides without a seek. Used for nothing but the
       * ledger, so outcomes stay identical on every replica; but a false claim would leave the
       * hidden version in place while its marker is removed, which brings the deleted value back.
       * Never set it on a key a later transaction may have rewritten.
       */
      readonly sameCommitAsWriteBefore?: number;
    };

export interface Txn {
  /** Unique per logical operation, reused by every retry of it: the apply step answers a repeat with the first outcome. */
  readonly txnId: string;
  /** The commit timestamp the reads were made at (docs/TRAPS.md, trap 1: it must be the view's ts, not a later one). */
  readonly startTsUs: number;
  /** The proposer's cluster-clock time, in ms: the only time SQS semantics may use. */
  readonly nowMs: number;
  readonly readKeys: readonly Uint8Array[];
  readonly writes: readonly TxnWrite[];
}

export type TxnOutcome =
  | { readonly kind: 'committed'; readonly commitTsUs: number }
  /** A read or written key has a version newer than startTsUs: the first committer won. */
  | { readonly kind: 'conflict'; readonly key: Uint8Array }
  /** nowMs is too far from the leader's stamp (limits.clockSkewMsMax). */
  | { readonly kind: 'clock-skew'; readonly skewMs: number }
  /** startTsUs is below the store's garbage-collection watermark: the reads cannot be validated. */
  | { readonly kind: 'too-old'; readonly watermarkTs: number };

/** A half-open key range [gte, lt) of encoded keys. */
export interface KeyRange {
  readonly gte: Uint8Array;
  readonly lt: Uint8Array;
}

export interface KeyValue {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** Bytes of rows as read, keys and values: what the byte budgets of scans and collection count. */
export function bytesOfRows(rows: readonly KeyValue[]): number {
  let bytes = 0;
  for (const row of rows) bytes += row.key.byteLength + row.value.byteLength;
  return bytes;
}

/** Hears the writes of each applied batch (TxnExecutor.onApplied). */
export type AppliedListener = (writes: readonly TxnWrite[], appliedTsUs: number) => void;

/** A consistent snapshot of the keyspace at `ts`. Release it so garbage collection can advance. */
export interface ReadView {
  readonly ts: number;
  /**
   * The value of `key` at ts. The bytes may be shared with the store's cache and other readers:
   * decode them or keep them, never write into them.
   */
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * get() of each key, in one pass through the engine where the keys lie close together (rows
   * of messages sent one after another); same sharing rule as get().
   */
  getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>>;
  scan(range: KeyRange, options: { limit: number; reverse?: boolean }): Promise<KeyValue[]>;
  release(): void;
}

/**
 * What the queue layer needs from the layer below: consistent reads, transaction commit and the
 * cluster clock. The cluster implements it over Raft (forwarding from followers); the local
 * executor applies directly to one MVCC store, for tests of the queue layer.
 */
export interface TxnExecutor {
  /** A view at a point this replica has applied; with `linearizable`, after a ReadIndex round. */
  readView(options: { linearizable: boolean }): Promise<ReadView>;
  /** Proposes the transaction and resolves with its outcome once applied on this replica. */
  commit(txn: Txn): Promise<TxnOutcome>;
  /** The cluster clock: this node's wall clock corrected by its offset to the leader's. */
  nowMs(): number;
  /**
   * Called after each applied batch with every write of its committed transactions, in apply
   * order (a key may repeat), and the batch's last commit timestamp.
   * Views taken after a listener ran include that batch; a view at or below `appliedTsUs` includes
   * nothing the listener has not heard of.
   */
  onApplied(listener: AppliedListener): () => void;
}
