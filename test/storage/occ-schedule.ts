import fc from 'fast-check';
import { ManualClock } from '../../src/base/clock.js';
import type { Engine } from '../../src/storage/engine.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore, type MvccStoreOptions } from '../../src/storage/mvcc-store.js';
import { allSystemRows } from '../../src/storage/system-keys.js';
import { applyEntries, type ApplyEntry, type TxnApplyRules } from '../../src/storage/txn-apply.js';
import type { Txn, TxnOutcome } from '../../src/storage/txn.js';
import { hex } from './engine-contract.js';

export const occKeys = [0, 1, 2, 3].map((i) => encodeKey(['k', i]));
export const occRules: TxnApplyRules = { clockSkewMsMax: 80, txnIdRetentionMs: 150, txnIdExpiryRowsPerEntryMax: 2 };
export const occHistoryMs = 20;

export type OccOp =
  | { kind: 'begin'; reads: number[]; writes: Array<{ key: number; isDelete: boolean }> }
  | { kind: 'propose'; entries: Array<{ picks: number[]; retries: number[] }> }
  | { kind: 'gc'; rowsMax: number }
  | { kind: 'tick'; ms: number };

const keyIndex = fc.nat(occKeys.length - 1);
export const occOpArb: fc.Arbitrary<OccOp> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('begin' as const),
      reads: fc.uniqueArray(keyIndex, { maxLength: 3 }),
      writes: fc.uniqueArray(fc.record({ key: keyIndex, isDelete: fc.boolean() }), {
        maxLength: 3,
        selector: (w) => w.key,
      }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('propose' as const),
      entries: fc.array(
        fc.record({ picks: fc.array(fc.nat(), { maxLength: 2 }), retries: fc.array(fc.nat(), { maxLength: 2 }) }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('gc' as const), rowsMax: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 45 }) }) },
);
export const occScheduleArb = fc.array(occOpArb, { minLength: 1, maxLength: 40, size: 'max' });

/** What a transaction of the schedule read (at its view) and what it became. */
export interface OccTxnRecord {
  readonly txn: Txn;
  /** The logical operation: retries with a fresh id (a broken client) still share it. */
  readonly opId: string;
  readonly reads: ReadonlyArray<{ key: Uint8Array; value: Uint8Array | undefined }>;
}

export interface OccProposal {
  readonly record: OccTxnRecord;
  readonly outcome: TxnOutcome;
  readonly clockMs: number;
  readonly isRetry: boolean;
}

export interface OccHistory {
  readonly proposals: OccProposal[];
  /** Every applied entry, grouped as applied (for a replica replay). */
  readonly calls: ApplyEntry[][];
  readonly outcomes: TxnOutcome[][][];
  readonly finalState: Map<string, string | undefined>;
  readonly systemRows: Array<[string, string]>;
}

export interface OccBreakage {
  /** Trap 1 (docs/TRAPS.md): startTsUs taken when the txn is proposed, not when its reads were made. */
  readonly startTsAtProposal?: boolean;
  /** An apply step that does not validate reads. */
  readonly dropReadKeys?: boolean;
  /** A client that retries under a fresh txn id. */
  readonly freshIdOnRetry?: boolean;
}

export async function openOccStore(
  engine: Engine = new MemoryEngine(),
  options: Omit<MvccStoreOptions, 'historyMs'> = {},
): Promise<MvccStore> {
  return MvccStore.open(engine, { ...options, historyMs: occHistoryMs });
}

export async function runOccSchedule(
  ops: readonly OccOp[],
  breakage: OccBreakage = {},
  engine?: Engine,
): Promise<OccHistory> {
  const store = await openOccStore(engine);
  const clock = new ManualClock(1_000);
  const pending: OccTxnRecord[] = [];
  const proposed: OccTxnRecord[] = [];
  const proposals: OccProposal[] = [];
  const calls: ApplyEntry[][] = [];
  const outcomes: TxnOutcome[][][] = [];
  let txnCount = 0;
  let retryCount = 0;
  for (const op of ops) {
    if (op.kind === 'begin') {
      const view = store.readView();
      const reads = [];
      for (const k of op.reads)
        reads.push({ key: occKeys[k] as Uint8Array, value: await view.get(occKeys[k] as Uint8Array) });
      view.release();
      const n = txnCount++;
      const derived = new TextEncoder().encode(
        `${n}|${reads.map((r) => (r.value === undefined ? '-' : hex(r.value))).join(',')}`,
      );
      const txn: Txn = {
        txnId: `t${n}`,
        startTsUs: view.ts,
        nowMs: clock.nowMs(),
        readKeys: breakage.dropReadKeys ? [] : reads.map((r) => r.key),
        writes: op.writes.map((w) =>
          w.isDelete
            ? { kind: 'delete', key: occKeys[w.key] as Uint8Array }
            : { kind: 'put', key: occKeys[w.key] as Uint8Array, value: derived },
        ),
      };
      pending.push({ txn, opId: txn.txnId, reads });
    } else if (op.kind === 'propose') {
      const entries: ApplyEntry[] = [];
      const entryRecords: Array<Array<{ record: OccTxnRecord; isRetry: boolean }>> = [];
      for (const spec of op.entries) {
        const records: Array<{ record: OccTxnRecord; isRetry: boolean }> = [];
        for (const pick of spec.picks) {
          if (pending.length === 0) break;
          let record = pending.splice(pick % pending.length, 1)[0] as OccTxnRecord;
          if (breakage.startTsAtProposal) record = { ...record, txn: { ...record.txn, startTsUs: store.lastCommitTs } };
          proposed.push(record);
          records.push({ record, isRetry: false });
        }
        for (const retry of spec.retries) {
          if (proposed.length === 0) break;
          let record = proposed[retry % proposed.length] as OccTxnRecord;
          if (breakage.freshIdOnRetry)
            record = { ...record, txn: { ...record.txn, txnId: `${record.txn.txnId}-retry${retryCount++}` } };
          records.push({ record, isRetry: true });
        }
        entries.push({
          index: store.appliedIndex + 1 + entries.length,
          leaderStampTsUs: clock.nowMs() * 1000,
          txns: records.map((r) => r.record.txn),
        });
        entryRecords.push(records);
      }
      const result = await applyEntries(store, entries, { rules: occRules });
      calls.push(entries);
      outcomes.push(result.outcomes);
      entryRecords.forEach((records, i) =>
        records.forEach((r, j) =>
          proposals.push({
            record: r.record,
            outcome: result.outcomes[i]?.[j] as TxnOutcome,
            clockMs: clock.nowMs(),
            isRetry: r.isRetry,
          }),
        ),
      );
    } else if (op.kind === 'gc') {
      await store.collectGarbage({ rowsMax: op.rowsMax });
    } else {
      clock.advanceMs(op.ms);
    }
  }
  return { proposals, calls, outcomes, finalState: await logicalState(store), systemRows: await systemRowsOf(store) };
}

export async function logicalState(store: MvccStore): Promise<Map<string, string | undefined>> {
  const state = new Map<string, string | undefined>();
  for (const key of occKeys) {
    const value = await store.getAt(key, store.lastCommitTs);
    state.set(hex(key), value === undefined ? undefined : hex(value));
  }
  return state;
}

export async function systemRowsOf(store: MvccStore): Promise<Array<[string, string]>> {
  return (await store.scanSystemRows(allSystemRows, 1_000_000)).map((r) => [hex(r.key), hex(r.value)]);
}

/**
 * Serializability: the committed txns, in commit order, replayed one by one on a plain map,
 * read exactly what they read at their views, and leave the final state the store has.
 * Returns the violations found (empty when serializable).
 */
export function checkSerializable(history: OccHistory): string[] {
  const violations: string[] = [];
  const committed = new Map<string, { record: OccTxnRecord; commitTsUs: number }>();
  for (const p of history.proposals) {
    if (p.outcome.kind === 'committed' && !committed.has(`${p.record.txn.txnId}@${p.outcome.commitTsUs}`)) {
      committed.set(`${p.record.txn.txnId}@${p.outcome.commitTsUs}`, {
        record: p.record,
        commitTsUs: p.outcome.commitTsUs,
      });
    }
  }
  const order = [...committed.values()].sort((a, b) => a.commitTsUs - b.commitTsUs);
  const model = new Map<string, string | undefined>();
  for (const { record } of order) {
    for (const read of record.reads) {
      const seen = read.value === undefined ? undefined : hex(read.value);
      if (model.get(hex(read.key)) !== seen)
        violations.push(
          `${record.txn.txnId} read ${hex(read.key)} = ${seen}, but serially it is ${model.get(hex(read.key))}`,
        );
    }
    for (const w of record.txn.writes) model.set(hex(w.key), w.kind === 'put' ? hex(w.value) : undefined);
  }
  for (const [key, value] of history.finalState) {
    if ((model.get(key) ?? undefined) !== value)
      violations.push(`final ${key} is ${value}, serial replay gives ${model.get(key)}`);
  }
  return violations;
}

/**
 * Retries: every proposal of one logical operation within the id retention gets the first
 * outcome, so a retried operation commits at most once.
 */
export function checkRetries(history: OccHistory): string[] {
  const violations: string[] = [];
  const first = new Map<string, OccProposal>();
  const commits = new Map<string, Set<number>>();
  for (const p of history.proposals) {
    const earlier = first.get(p.record.opId);
    if (earlier === undefined) first.set(p.record.opId, p);
    else if (
      p.clockMs - earlier.clockMs < occRules.txnIdRetentionMs &&
      JSON.stringify(p.outcome) !== JSON.stringify(earlier.outcome)
    ) {
      violations.push(
        `${p.record.opId} retried: ${JSON.stringify(p.outcome)} after ${JSON.stringify(earlier.outcome)}`,
      );
    }
    if (p.outcome.kind === 'committed') {
      const set = commits.get(p.record.opId) ?? new Set<number>();
      set.add(p.outcome.commitTsUs);
      commits.set(p.record.opId, set);
      if (set.size > 1 && p.clockMs - (earlier ?? p).clockMs < occRules.txnIdRetentionMs)
        violations.push(`${p.record.opId} committed ${set.size} times`);
    }
  }
  return violations;
}
