import { describe, expect, it } from 'vitest';
import { raftq } from '../../src/gen/proto.js';
import { txnFromWire, txnToWire } from '../../src/cluster/forward-codec.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import type { Txn } from '../../src/storage/txn.js';

/** A txn as the leader receives it from a follower: through the protobuf bytes, not just the object. */
function throughTheWire(txn: Txn): Txn {
  const bytes = raftq.cluster.Txn.encode(raftq.cluster.Txn.create(txnToWire(txn))).finish();
  return txnFromWire(raftq.cluster.Txn.decode(bytes));
}

describe('forwarded transactions', () => {
  it('arrive with their reads, puts, deletes and new-key, live-key and same-commit vouches intact', () => {
    const txn: Txn = {
      txnId: 'send-1',
      startTsUs: 1_700_000_000_123_456,
      nowMs: 1_700_000_000_123,
      readKeys: [encodeKey(['q', 'orders', 'meta'])],
      writes: [
        { kind: 'put', key: encodeKey(['q', 'orders', 'data', 'm1']), value: Uint8Array.of(1, 2, 3), isNewKey: true },
        { kind: 'put', key: encodeKey(['q', 'orders', 'dedup', 'd1']), value: Uint8Array.of(4) },
        { kind: 'delete', key: encodeKey(['q', 'orders', 'vis', 'm0']) },
        { kind: 'delete', key: encodeKey(['q', 'orders', 'vis', 'm2']), isLiveKey: true },
        { kind: 'delete', key: encodeKey(['q', 'orders', 'age', 'm0']), isLiveKey: true, sameCommitAsWriteBefore: 2 },
      ],
    };
    const received = throughTheWire(txn);
    expect(
      received.writes.map((write) => ({
        ...write,
        key: [...write.key],
        ...(write.kind === 'put' ? { value: [...write.value] } : {}),
      })),
    ).toEqual(
      txn.writes.map((write) => ({
        ...write,
        key: [...write.key],
        ...(write.kind === 'put' ? { value: [...write.value] } : {}),
      })),
    );
    expect({ ...received, writes: [], readKeys: received.readKeys.map((key) => [...key]) }).toEqual({
      ...txn,
      writes: [],
      readKeys: txn.readKeys.map((key) => [...key]),
    });
  });
});
