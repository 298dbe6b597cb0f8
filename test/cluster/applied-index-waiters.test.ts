import { describe, expect, it } from 'vitest';
import { LeaderWatch } from '../../src/cluster/leader-watch.js';
import { AppliedIndexWaiters } from '../../src/cluster/txn-waiters.js';
import { VirtualTime } from '../sim-node/virtual-time.js';

describe('AppliedIndexWaiters.isWaiting (a follower applies at once while it is true)', () => {
  it('is true from a wait for an index not yet applied until that index is applied', async () => {
    let applied = 5;
    const waiters = new AppliedIndexWaiters(() => applied, new VirtualTime());
    expect(waiters.isWaiting).toBe(false);
    await expect(waiters.waitFor(5, 1_000)).resolves.toBe(true);
    expect(waiters.isWaiting).toBe(false);
    const waited = waiters.waitFor(7, 1_000);
    expect(waiters.isWaiting).toBe(true);
    applied = 6;
    waiters.notify();
    expect(waiters.isWaiting).toBe(true);
    applied = 7;
    waiters.notify();
    await expect(waited).resolves.toBe(true);
    expect(waiters.isWaiting).toBe(false);
  });

  it('is false again once a wait timed out', async () => {
    const time = new VirtualTime();
    const waiters = new AppliedIndexWaiters(() => 0, time);
    const waited = waiters.waitFor(3, 100);
    expect(waiters.isWaiting).toBe(true);
    await time.runUntil(100);
    await expect(waited).resolves.toBe(false);
    expect(waiters.isWaiting).toBe(false);
  });
});

describe('LeaderWatch.isFollowing', () => {
  it('is true only for a follower that knows its leader', () => {
    const watch = new LeaderWatch({ nodeId: 'n2', isStopping: () => false, scheduler: new VirtualTime() });
    expect(watch.isFollowing).toBe(false);
    watch.update({ leader: 'n1', role: 'follower' });
    expect(watch.isFollowing).toBe(true);
    watch.update({ leader: '', role: 'candidate' });
    expect(watch.isFollowing).toBe(false);
    watch.update({ leader: 'n2', role: 'leader' });
    expect(watch.isFollowing).toBe(false);
  });
});
