/**
 * The apply step finds what it knows of a key by the key's hash (txn-apply.ts): two keys whose
 * hashes collide must still be told apart, or one key's write would decide the other's validation.
 */
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { keyHashOf } from '../../src/storage/key-hash.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { applyEntries } from '../../src/storage/txn-apply.js';
import type { Txn } from '../../src/storage/txn.js';

/** Two different keys with one hash (about 19 pairs are expected among 200,000 keys). */
function collidingKeys(): [Uint8Array, Uint8Array] {
  const byHash = new Map<number, Uint8Array>();
  for (let i = 0; ; i++) {
    const key = encodeKey(['q', 'jobs', 'g', 1, 'state', 0, `m-${i}`]);
    const hash = keyHashOf(key);
    const earlier = byHash.get(hash);
    if (earlier !== undefined) return [earlier, key];
    byHash.set(hash, key);
  }
}

describe('the apply step and keys whose hashes collide', () => {
  it('validates each against its own versions, in one step and across steps', async () => {
    const [a, b] = collidingKeys();
    expect(keyHashOf(a)).toBe(keyHashOf(b));
    const store = await MvccStore.open(new MemoryEngine());
    const start = store.lastCommitTs;
    const txn = (txnId: string, startTsUs: number, write: Uint8Array, read: Uint8Array[] = []): Txn => ({
      txnId,
      startTsUs,
      nowMs: 1_000,
      readKeys: read,
      writes: [{ kind: 'put', key: write, value: Uint8Array.of(txnId.length) }],
    });
    // One step: a writes a; then, from the same start, b reads b and writes it: a's write is no conflict of b's.
    const first = await applyEntries(store, [
      {
        index: 1,
        leaderStampTsUs: 1_000_000,
        txns: [txn('w-a', start, a), txn('w-b', start, Uint8Array.from(b), [b])],
      },
    ]);
    expect(first.outcomes[0]?.map((outcome) => outcome.kind)).toEqual(['committed', 'committed']);
    // A txn that read a before both commits conflicts on a; one that read only b after them does not.
    const afterB = store.lastCommitTs;
    const second = await applyEntries(store, [
      {
        index: 2,
        leaderStampTsUs: 1_001_000,
        txns: [txn('stale-a', start, Uint8Array.from(b), [Uint8Array.from(a)]), txn('fresh-b', afterB, a, [b])],
      },
    ]);
    expect(second.outcomes[0]?.map((outcome) => outcome.kind)).toEqual(['conflict', 'committed']);
    const view = store.readView();
    expect(await view.get(a)).toEqual(Uint8Array.of('fresh-b'.length));
    expect(await view.get(b)).toEqual(Uint8Array.of('w-b'.length));
    view.release();
  });
});
