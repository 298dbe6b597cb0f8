import { describe, expect, it } from 'vitest';
import { mayApplyBesideWrite } from '../../src/cluster/ready-loop-turn.js';
import { EntryType, type Entry } from '../../src/raft/types.js';

function entry(index: number, type: EntryType = EntryType.Normal): Entry {
  return { index, term: 1, type, data: new Uint8Array() };
}

describe('applying committed entries while the Ready is written', () => {
  it('applies entries made durable in an earlier turn beside the write (a leader, a caught-up follower)', () => {
    expect(mayApplyBesideWrite([entry(5), entry(6)], { hasSnapshot: false, durableLastIndex: 6 })).toBe(true);
    expect(mayApplyBesideWrite([entry(5)], { hasSnapshot: false, durableLastIndex: 9 })).toBe(true);
  });

  it('waits for the write when a committed entry is one this Ready writes (a follower told the commit with the entries)', () => {
    expect(mayApplyBesideWrite([entry(5), entry(6), entry(7)], { hasSnapshot: false, durableLastIndex: 6 })).toBe(
      false,
    );
  });

  it('waits for the write with a snapshot to install, or a conf change among the entries', () => {
    expect(mayApplyBesideWrite([entry(5)], { hasSnapshot: true, durableLastIndex: 9 })).toBe(false);
    expect(
      mayApplyBesideWrite([entry(5), entry(6, EntryType.ConfChange)], { hasSnapshot: false, durableLastIndex: 9 }),
    ).toBe(false);
  });

  it('has nothing to apply beside the write when nothing is committed', () => {
    expect(mayApplyBesideWrite([], { hasSnapshot: false, durableLastIndex: 9 })).toBe(false);
  });
});
