/**
 * A removable marker whose key ends exactly where a collection step ends is carried to the next
 * step (GcKeyState.pendingMarker): dropped, it stayed as long as the keyspace did not change, since
 * every pass ended its steps at the same rows.
 */
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { readRange } from '../../src/storage/engine.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { TxnWrite } from '../../src/storage/txn.js';
import { initialGcKeyState, planVersionGc } from '../../src/storage/version-gc.js';
import { encodeVersionKey, encodeVersionValue, userSpaceStart } from '../../src/storage/version-key.js';
import { occRules, openOccStore } from './occ-schedule.js';

const value = (key: number, ts: number) => ({
  key: encodeVersionKey(encodeKey(['k', key]), ts),
  value: encodeVersionValue(Uint8Array.of(1)),
});
const marker = (key: number, ts: number) => ({
  key: encodeVersionKey(encodeKey(['k', key]), ts),
  value: encodeVersionValue(undefined),
});

describe('a removable marker at the end of a collection step', () => {
  it('is carried to the next step and removed there, with the older versions of its key that step reads', () => {
    const first = [value(0, 5), value(1, 5), marker(2, 8)];
    const step1 = planVersionGc(first, initialGcKeyState, 20, 20, { isEndOfKeyspace: false });
    expect(step1.removals).toEqual([]);
    expect(step1.state.pendingMarker).toEqual(first[2]?.key);
    const rest = [value(2, 4), value(3, 5)];
    const step2 = planVersionGc(rest, step1.state, 20, 20, { isEndOfKeyspace: false });
    expect(step2.removals).toEqual([rest[0]?.key, first[2]?.key]);
    expect(step2.removedBases).toEqual([first[2]?.key]);
    expect(step2.state.pendingMarker).toBeUndefined();
  });

  it('is removed by the step that finds the end of the keyspace, even one that reads no row', () => {
    const rows = [value(0, 5), marker(1, 8)];
    const step1 = planVersionGc(rows, initialGcKeyState, 20, 20, { isEndOfKeyspace: false });
    const step2 = planVersionGc([], step1.state, 20, 20, { isEndOfKeyspace: true });
    expect(step2.removals).toEqual([rows[1]?.key]);
    expect(step2.deletionMarkersRemoved).toBe(1);
  });

  it('leaves a store with one version per live key when steps end exactly at the deleted key', async () => {
    const engine = new MemoryEngine();
    const store = await openOccStore(engine);
    let nowMs = 1_000;
    let txn = 0;
    const apply = async (writes: TxnWrite[]) => {
      nowMs += 1;
      const entry = {
        index: store.appliedIndex + 1,
        leaderStampTsUs: nowMs * 1000,
        txns: [{ txnId: `t${txn++}`, startTsUs: store.lastCommitTs, nowMs, readKeys: [], writes }],
      };
      const [outcome] = (await applyEntries(store, [entry], { rules: occRules })).outcomes[0] ?? [];
      expect(outcome?.kind).toBe('committed');
    };
    for (let n = 0; n < 4; n++)
      await apply([{ kind: 'put', key: encodeKey(['k', n]), value: Uint8Array.of(1), isNewKey: true }]);
    await apply([{ kind: 'delete', key: encodeKey(['k', 3]) }]);
    // Three values and the marker: four rows, so steps of four end exactly at the marker.
    for (let pass = 0; pass < 3 && store.hasGarbageToCollect; pass++) {
      nowMs += 100;
      await apply([]); // moves the commit time, with it the watermark and the horizon, past the marker
      while (!(await store.collectGarbage({ rowsMax: 4 })).isPassComplete);
    }
    expect(store.hasGarbageToCollect).toBe(false);
    expect((await readRange(engine, { gte: userSpaceStart }, 100)).length).toBe(3);
  });
});
