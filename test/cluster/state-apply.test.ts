/**
 * What a run of applied entries reports as written (state-apply.ts): the onApplied listeners
 * (queue indexes, long polls) hear exactly these writes, so a repeated txn id, answered
 * "committed" from the txn-id table without writing, must not be reported as writing again.
 */
import { describe, expect, it } from 'vitest';
import { applyEntriesToStore } from '../../src/cluster/state-apply.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import type { Txn } from '../../src/storage/txn.js';

describe('the writes a run of applied entries reports', () => {
  it('are those of txns committed in the run, not of a repeated txn id answered from the table', async () => {
    const store = await MvccStore.open(new MemoryEngine());
    const send: Txn = {
      txnId: 'send-1',
      startTsUs: store.lastCommitTs,
      nowMs: 1_000,
      readKeys: [],
      writes: [{ kind: 'put', key: encodeKey(['q', 'vis', 'm1']), value: Uint8Array.of(1) }],
    };
    const first = await applyEntriesToStore(store, [{ index: 1, leaderStampTsUs: 1_000_000, txns: [send] }]);
    expect(first.entries[0]?.results[0]?.outcome.kind).toBe('committed');
    expect(first.writes).toHaveLength(1);
    // The same txn proposed again (its first answer was lost): answered "committed", writes nothing.
    const repeat = await applyEntriesToStore(store, [{ index: 2, leaderStampTsUs: 1_001_000, txns: [send] }]);
    expect(repeat.entries[0]?.results[0]?.outcome.kind).toBe('committed');
    expect(repeat.writes).toEqual([]);
  });
});
