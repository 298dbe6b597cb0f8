import { describe, expect, it } from 'vitest';
import { FollowerApplyPacing, mayHoldBackApply } from '../../src/cluster/follower-apply-pacing.js';
import { EntryType, type Entry } from '../../src/raft/types.js';
import { VirtualTime } from '../sim-node/virtual-time.js';

function entry(index: number, type: EntryType = EntryType.Normal): Entry {
  return { index, term: 1, type, data: new Uint8Array([index & 0xff]) };
}

function pacingOn(time: VirtualTime, entriesMin = 4, delayMsMax = 20) {
  const kicks: number[] = [];
  const pacing = new FollowerApplyPacing({
    scheduler: time,
    entriesMin,
    delayMsMax,
    kick: () => kicks.push(time.nowMs),
  });
  return { pacing, kicks };
}

const indexes = (entries: readonly Entry[]) => entries.map((e) => e.index);

describe('FollowerApplyPacing', () => {
  it('holds entries back until entriesMin are pending, then hands them all over in log order', () => {
    const { pacing } = pacingOn(new VirtualTime());
    expect(pacing.take([entry(1)], true)).toEqual([]);
    expect(pacing.take([entry(2), entry(3)], true)).toEqual([]);
    expect(pacing.pendingCount).toBe(3);
    expect(indexes(pacing.take([entry(4), entry(5)], true))).toEqual([1, 2, 3, 4, 5]);
    expect(pacing.pendingCount).toBe(0);
  });

  it('wakes the loop after delayMsMax and hands over what waited that long, not sooner', async () => {
    const time = new VirtualTime();
    const { pacing, kicks } = pacingOn(time);
    expect(pacing.take([entry(1)], true)).toEqual([]);
    await time.runUntil(19);
    expect(kicks).toEqual([]);
    expect(pacing.takeDue(true)).toEqual([]);
    await time.runUntil(20);
    expect(kicks).toEqual([20]);
    expect(indexes(pacing.takeDue(true))).toEqual([1]);
    expect(pacing.takeDue(true)).toEqual([]);
  });

  it('hands everything over at once when holding back is not allowed (a read waits, a leader, a snapshot)', () => {
    const { pacing } = pacingOn(new VirtualTime());
    pacing.take([entry(1), entry(2)], true);
    expect(indexes(pacing.take([entry(3)], false))).toEqual([1, 2, 3]);
    pacing.take([entry(4)], true);
    expect(indexes(pacing.takeDue(false))).toEqual([4]);
  });

  it('never holds back a membership change, nor what came before it', () => {
    const { pacing } = pacingOn(new VirtualTime());
    pacing.take([entry(1)], true);
    expect(indexes(pacing.take([entry(2, EntryType.ConfChange), entry(3)], true))).toEqual([1, 2, 3]);
  });

  it('cancels its wake-up once it handed the entries over, and arms a new one for the next', async () => {
    const time = new VirtualTime();
    const { pacing, kicks } = pacingOn(time, 2, 20);
    pacing.take([entry(1)], true);
    expect(indexes(pacing.take([entry(2)], true))).toEqual([1, 2]);
    await time.runUntil(50);
    expect(kicks).toEqual([]);
    pacing.take([entry(3)], true);
    await time.runUntil(80);
    expect(kicks).toEqual([70]);
  });

  it('passes entries straight through when nothing is pending and it may not hold back', () => {
    const { pacing } = pacingOn(new VirtualTime());
    const committed = [entry(1)];
    expect(pacing.take(committed, false)).toBe(committed);
    expect(pacing.take([], true)).toEqual([]);
  });

  it('may hold back only as a follower nobody waits on, in a Ready without a snapshot or reads', () => {
    const quiet = { isFollowing: true, isApplyAwaited: false, hasSnapshot: false, hasReadStates: false };
    expect(mayHoldBackApply(quiet)).toBe(true);
    expect(mayHoldBackApply({ ...quiet, isFollowing: false })).toBe(false);
    expect(mayHoldBackApply({ ...quiet, isApplyAwaited: true })).toBe(false);
    expect(mayHoldBackApply({ ...quiet, hasSnapshot: true })).toBe(false);
    expect(mayHoldBackApply({ ...quiet, hasReadStates: true })).toBe(false);
  });
});
