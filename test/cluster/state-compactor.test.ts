import { describe, expect, it } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { StateCompactor } from '../../src/cluster/state-compactor.js';
import type { StateStore } from '../../src/cluster/state-store.js';
import { generationRangeOf } from '../../src/queue/layout/key-family.js';
import { physicalBounds } from '../../src/storage/version-key.js';

function harness() {
  let nowMs = 1_000_000;
  const compacted: Array<{ gte: string; lt: string }> = [];
  const state = {
    engine: {
      compactRange: async (gte: Uint8Array, lt: Uint8Array) =>
        void compacted.push({ gte: Buffer.from(gte).toString('hex'), lt: Buffer.from(lt).toString('hex') }),
    },
  } as unknown as StateStore;
  const compactor = new StateCompactor({ generationRange: generationRangeOf, nowMs: () => nowMs });
  compactor.useState(state);
  const expectedRange = (id: string) => {
    const bounds = physicalBounds(generationRangeOf(id));
    return { gte: Buffer.from(bounds.gte).toString('hex'), lt: Buffer.from(bounds.lt).toString('hex') };
  };
  return { compactor, compacted, expectedRange, advanceMs: (ms: number) => (nowMs += ms) };
}

describe('state compactor', () => {
  it('compacts a generation whose tombstone was deleted, once the delay has passed', async () => {
    const { compactor, compacted, expectedRange, advanceMs } = harness();
    compactor.noteRowRemoved({ family: 'data', generationId: 'q/1' });
    compactor.noteRowRemoved({ family: 'tombstone', generationId: 'q/1' });
    compactor.noteRowRemoved({ family: 'meta' });
    expect(await compactor.maybeCompact()).toBe(false);
    advanceMs(raftLimits.stateCompactionDelayMs.value);
    expect(await compactor.maybeCompact()).toBe(true);
    expect(compacted).toEqual([expectedRange('q/1')]);
    expect(compactor.pendingCount).toBe(0);
  });

  it('compacts a live generation after enough deletes, and at most one range per interval', async () => {
    const { compactor, compacted, expectedRange, advanceMs } = harness();
    for (let i = 0; i < raftLimits.stateCompactionDeletesMin.value - 1; i++)
      compactor.noteRowRemoved({ family: 'vis', generationId: 'busy/3' });
    compactor.noteRowRemoved({ family: 'tombstone', generationId: 'other/1' });
    advanceMs(1);
    compactor.noteRowRemoved({ family: 'vis', generationId: 'busy/3' });
    advanceMs(raftLimits.stateCompactionDelayMs.value);
    expect(await compactor.maybeCompact()).toBe(true);
    expect(await compactor.maybeCompact()).toBe(false);
    advanceMs(raftLimits.stateCompactionIntervalMs.value);
    expect(await compactor.maybeCompact()).toBe(true);
    expect(compacted).toEqual([expectedRange('other/1'), expectedRange('busy/3')]);
  });
});
