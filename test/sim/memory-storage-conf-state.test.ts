import { describe, expect, it } from 'vitest';
import { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import { EntryType } from '../../src/raft/types.js';

// Found by the simulator (seed 10, five nodes): a node that snapshotted past the removal of a
// voter, compacted its log and restarted came back with the bootstrap configuration, because
// initialState() still returned it. The removal entry was compacted away, so replay could not
// repair it: the node counted votes of removed members and the cluster lost liveness.
describe('MemoryRaftStorage after a local snapshot', () => {
  it('initialState() reports the configuration recorded in the snapshot, not the bootstrap one', () => {
    const storage = new MemoryRaftStorage({ confState: { voters: ['1', '2', '3', '4'], learners: [] } });
    const data = new Uint8Array(0);
    storage.append([1, 2, 3].map((index) => ({ index, term: 1, type: EntryType.Normal, data })));
    const afterRemoval = { voters: ['2', '3', '4'], learners: [] };
    storage.createSnapshot(3, afterRemoval, data);
    storage.compact(3);
    expect(storage.initialState().confState).toEqual(afterRemoval);
  });
});
