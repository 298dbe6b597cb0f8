import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssertionFailedError } from '../../src/base/assert.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { txnRowKey } from '../../src/storage/system-keys.js';
import { applyEntries, type ApplyEntry, type TxnApplyRules } from '../../src/storage/txn-apply.js';
import type { Txn } from '../../src/storage/txn.js';
import {
  checkRetries,
  checkSerializable,
  logicalState,
  occRules,
  occScheduleArb,
  openOccStore,
  runOccSchedule,
  systemRowsOf,
  type OccHistory,
} from './occ-schedule.js';

const runs = { numRuns: 1000 };
const key = (n: number) => encodeKey(['k', n]);
const value = (n: number) => Uint8Array.of(n);

function txn(id: string, fields: Partial<Txn> = {}): Txn {
  return { txnId: id, startTsUs: 0, nowMs: 1_000, readKeys: [], writes: [], ...fields };
}

async function applyOne(store: MvccStore, leaderStampTsUs: number, txns: Txn[], rules: TxnApplyRules = occRules) {
  const result = await applyEntries(store, [{ index: store.appliedIndex + 1, leaderStampTsUs, txns }], { rules });
  return result.outcomes[0] ?? [];
}

/**
 * Replays a history's entries on a fresh store, one entry per call, collecting garbage after each
 * and reopening the store before each (so no in-process cache carries over from one entry to the next).
 */
async function replayOneByOne(history: OccHistory) {
  const engine = new MemoryEngine();
  let store = await openOccStore(engine);
  const outcomes = [];
  for (const entry of history.calls.flat()) {
    store = await openOccStore(engine);
    const result = await applyEntries(store, [entry], { rules: occRules });
    outcomes.push(...result.outcomes);
    await store.collectGarbage({ rowsMax: 3 });
  }
  return { outcomes, finalState: await logicalState(store), systemRows: await systemRowsOf(store) };
}

describe('applyEntries (OCC)', () => {
  it('random concurrent schedules are serializable, retries get their first outcome, and replicas agree', async () => {
    await fc.assert(
      fc.asyncProperty(occScheduleArb, async (ops) => {
        const history = await runOccSchedule(ops);
        expect(checkSerializable(history)).toEqual([]);
        expect(checkRetries(history)).toEqual([]);
        const replica = await replayOneByOne(history);
        expect(replica.outcomes).toEqual(history.outcomes.flat());
        expect(replica.finalState).toEqual(history.finalState);
        expect(replica.systemRows).toEqual(history.systemRows);
      }),
      runs,
    );
  });

  it('the serializability check catches trap 1: a startTsUs later than the reads', async () => {
    const result = await fc.check(
      fc.asyncProperty(occScheduleArb, async (ops) => {
        expect(checkSerializable(await runOccSchedule(ops, { startTsAtProposal: true }))).toEqual([]);
      }),
      { numRuns: 1000, seed: 21 },
    );
    expect(result.failed).toBe(true);
  });

  it('the serializability check catches an apply step that does not validate reads', async () => {
    const result = await fc.check(
      fc.asyncProperty(occScheduleArb, async (ops) => {
        expect(checkSerializable(await runOccSchedule(ops, { dropReadKeys: true }))).toEqual([]);
      }),
      { numRuns: 1000, seed: 22 },
    );
    expect(result.failed).toBe(true);
  });

  it('the retry check catches a client that retries under a fresh txn id', async () => {
    const result = await fc.check(
      fc.asyncProperty(occScheduleArb, async (ops) => {
        expect(checkRetries(await runOccSchedule(ops, { freshIdOnRetry: true }))).toEqual([]);
      }),
      { numRuns: 1000, seed: 23 },
    );
    expect(result.failed).toBe(true);
  });

  it('accepts a view taken during an idle period although the first commit after it jumps far ahead', async () => {
    const store = await openOccStore();
    await applyOne(store, 1_000_000, [txn('a', { writes: [{ kind: 'put', key: key(0), value: value(1) }] })]);
    const outcomes = await applyOne(store, 9_000_000, [
      txn('first', { nowMs: 9_000, startTsUs: 1_000_000, writes: [{ kind: 'put', key: key(1), value: value(1) }] }),
      txn('second', { nowMs: 9_000, startTsUs: 1_000_000, writes: [{ kind: 'put', key: key(2), value: value(1) }] }),
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual(['committed', 'committed']);
  });

  it('derives commitTsUs = max(lastCommitTs + 1, leaderStampTsUs), monotonic even when the stamp goes back', async () => {
    const store = await openOccStore();
    const first = await applyOne(store, 1_000_000, [
      txn('a', { nowMs: 1_000, writes: [{ kind: 'put', key: key(0), value: value(1) }] }),
      txn('b', { nowMs: 1_000 }),
    ]);
    expect(first).toEqual([
      { kind: 'committed', commitTsUs: 1_000_000 },
      { kind: 'committed', commitTsUs: 1_000_001 },
    ]);
    const second = await applyOne(store, 999_000, [txn('c', { nowMs: 999, startTsUs: 1_000_001 })]);
    expect(second).toEqual([{ kind: 'committed', commitTsUs: 1_000_002 }]);
    expect(store.lastCommitTs).toBe(1_000_002);
  });

  it('rejects a txn whose nowMs is further than clockSkewMsMax from the stamp, either way', async () => {
    const store = await openOccStore();
    const rules = { ...occRules, clockSkewMsMax: 40 };
    const outcomes = await applyOne(
      store,
      1_000_000,
      [txn('ahead', { nowMs: 1_041 }), txn('behind', { nowMs: 959 }), txn('edge', { nowMs: 1_040 })],
      rules,
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['clock-skew', 'clock-skew', 'committed']);
    expect(outcomes[0]).toEqual({ kind: 'clock-skew', skewMs: 41 });
    expect(outcomes[1]).toEqual({ kind: 'clock-skew', skewMs: -41 });
  });

  it('rejects a txn whose startTsUs is below the horizon as too-old', async () => {
    const store = await openOccStore();
    await applyOne(store, 1_000_000, [txn('a', { writes: [{ kind: 'put', key: key(0), value: value(1) }] })]);
    await applyOne(store, 1_060_000, [txn('b', { nowMs: 1_060, startTsUs: 1_000_000 })]);
    // The horizon is the newest commit at least historyMs (50 ms) before lastCommitTs: 1_000_000.
    const outcomes = await applyOne(store, 1_070_000, [
      txn('old', { nowMs: 1_070, startTsUs: 1_000_000 - 1 }),
      txn('fresh', { nowMs: 1_070, startTsUs: 1_000_000 }),
    ]);
    expect(outcomes).toEqual([
      { kind: 'too-old', watermarkTs: 1_000_000 },
      { kind: 'committed', commitTsUs: 1_070_000 },
    ]);
  });

  it('lets the first committer win inside one entry, through the keys both touch only', async () => {
    const store = await openOccStore();
    const outcomes = await applyOne(store, 1_000_000, [
      txn('w1', { writes: [{ kind: 'put', key: key(0), value: value(1) }] }),
      txn('w2', { readKeys: [key(0)], writes: [{ kind: 'put', key: key(1), value: value(2) }] }),
      txn('w3', { readKeys: [key(2)], writes: [{ kind: 'put', key: key(3), value: value(3) }] }),
    ]);
    expect(outcomes).toEqual([
      { kind: 'committed', commitTsUs: 1_000_000 },
      { kind: 'conflict', key: key(0) },
      { kind: 'committed', commitTsUs: 1_000_001 },
    ]);
  });

  it('advances the applied index for entries without txns and refuses a gap', async () => {
    const store = await openOccStore();
    await applyEntries(store, [
      { index: 1, leaderStampTsUs: 0, txns: [] },
      { index: 2, leaderStampTsUs: 0, txns: [] },
    ]);
    expect(store.appliedIndex).toBe(2);
    await expect(applyEntries(store, [{ index: 4, leaderStampTsUs: 0, txns: [] }])).rejects.toThrow(
      AssertionFailedError,
    );
    await expect(applyEntries(store, [{ index: 2, leaderStampTsUs: 0, txns: [] }])).rejects.toThrow(
      AssertionFailedError,
    );
    expect(store.appliedIndex).toBe(2);
  });

  it('remembers txn ids across a restart and answers a retry with the first outcome', async () => {
    const engine = new MemoryEngine();
    const store = await MvccStore.open(engine, { historyMs: 50 });
    const put = txn('once', { writes: [{ kind: 'put', key: key(0), value: value(1) }] });
    expect(await applyOne(store, 1_000_000, [put])).toEqual([{ kind: 'committed', commitTsUs: 1_000_000 }]);
    await store.flush();
    engine.crash();
    const restarted = await MvccStore.open(engine, { historyMs: 50 });
    expect(await applyOne(restarted, 1_010_000, [{ ...put, nowMs: 1_010 }])).toEqual([
      { kind: 'committed', commitTsUs: 1_000_000 },
    ]);
    expect(await restarted.latestCommitTs(key(0))).toBe(1_000_000);
  });

  it('forgets a txn id once the entry time passes its retention, a bounded number per entry', async () => {
    const store = await openOccStore();
    const rules = { clockSkewMsMax: 1_000, txnIdRetentionMs: 100, txnIdExpiryRowsPerEntryMax: 2 };
    await applyOne(store, 1_000_000, [txn('a'), txn('b'), txn('c')], rules);
    // Entry time 1_101 ms: all three are expired (recorded at 1_000 + 100 < 1_101); two rows go.
    await applyOne(store, 1_101_000, [txn('x', { nowMs: 1_101 })], rules);
    const remaining = await Promise.all(['a', 'b', 'c'].map((id) => store.getSystemRow(txnRowKey(id))));
    expect(remaining.filter((row) => row !== undefined).length).toBe(1);
    // An expired id not yet deleted is still treated as unknown: it is applied anew.
    const again = await applyOne(store, 1_102_000, [txn('c', { nowMs: 1_102, startTsUs: store.lastCommitTs })], rules);
    expect(again[0]?.kind).toBe('committed');
    expect(again[0]).not.toEqual({ kind: 'committed', commitTsUs: 1_000_002 });
  });

  it('scans for expired txn ids only once the oldest recorded one can have expired', async () => {
    const store = await openOccStore();
    let scans = 0;
    const scanSystemRows = store.scanSystemRows.bind(store);
    store.scanSystemRows = (range, limit) => {
      scans += 1;
      return scanSystemRows(range, limit);
    };
    const rules = { clockSkewMsMax: 1_000, txnIdRetentionMs: 100, txnIdExpiryRowsPerEntryMax: 2 };
    await applyOne(store, 1_000_000, [txn('a')], rules);
    // Entry times 1_050 to 1_100 ms: the oldest id (recorded at 1_000) cannot have expired yet.
    for (let ms = 1_050; ms <= 1_100; ms += 10) await applyOne(store, ms * 1000, [txn(`t${ms}`, { nowMs: ms })], rules);
    const scansBeforeExpiry = scans;
    expect(scansBeforeExpiry).toBeLessThanOrEqual(2);
    // At 1_101 ms 'a' has expired: the entry scans and deletes it.
    await applyOne(store, 1_101_000, [txn('x', { nowMs: 1_101 })], rules);
    expect(scans).toBeGreaterThan(scansBeforeExpiry);
    expect(await store.getSystemRow(txnRowKey('a'))).toBeUndefined();
    expect(await store.getSystemRow(txnRowKey('t1050'))).toBeDefined();
  });

  it('applies the same entries to the same state however they are grouped into calls', async () => {
    const entries: ApplyEntry[] = [
      {
        index: 1,
        leaderStampTsUs: 1_000_000,
        txns: [txn('a', { writes: [{ kind: 'put', key: key(0), value: value(1) }] })],
      },
      { index: 2, leaderStampTsUs: 0, txns: [] },
      {
        index: 3,
        leaderStampTsUs: 1_000_500,
        txns: [
          txn('b', { startTsUs: 1_000_000, readKeys: [key(0)], writes: [{ kind: 'delete', key: key(0) }] }),
          txn('a'),
        ],
      },
    ];
    const together = await openOccStore();
    const apart = await openOccStore();
    const all = await applyEntries(together, entries, { rules: occRules });
    const separate = [];
    for (const entry of entries) separate.push(...(await applyEntries(apart, [entry], { rules: occRules })).outcomes);
    expect(separate).toEqual(all.outcomes);
    expect(await systemRowsOf(apart)).toEqual(await systemRowsOf(together));
    expect(await logicalState(apart)).toEqual(await logicalState(together));
  });

  it('the checkers report a history in which one operation committed twice', () => {
    const record = {
      txn: txn('dup', { writes: [{ kind: 'put', key: key(0), value: value(1) }] }),
      opId: 'dup',
      reads: [],
    };
    const history: OccHistory = {
      proposals: [
        { record, outcome: { kind: 'committed', commitTsUs: 10 }, clockMs: 1, isRetry: false },
        { record, outcome: { kind: 'committed', commitTsUs: 11 }, clockMs: 2, isRetry: true },
      ],
      calls: [],
      outcomes: [],
      finalState: new Map(),
      systemRows: [],
    };
    expect(checkRetries(history).length).toBeGreaterThan(0);
  });
});
