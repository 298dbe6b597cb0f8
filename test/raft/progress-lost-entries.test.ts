import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/raft/progress.js';

const limits = { inflightMessagesMax: 4, inflightBytesMax: 1_000 };

describe('Progress of a follower that lost entries it acknowledged', () => {
  it("probes down from the follower's hint instead of stopping at the old match", () => {
    const progress = new Progress(1, false, limits);
    progress.maybeUpdate(40);
    progress.becomeReplicate();
    progress.sentEntries(2, 42, 20);
    // The follower restarted with its log cut back to 30: the pipelined append is rejected...
    expect(progress.maybeDecreaseTo(42, 30)).toBe(true);
    progress.becomeProbe();
    expect(progress.next).toBe(41);
    // ...and so is the probe at the old match: the leader must go below it.
    expect(progress.maybeDecreaseTo(40, 30)).toBe(true);
    expect(progress.match).toBe(0);
    expect(progress.next).toBe(31);
    progress.maybeUpdate(42);
    expect(progress.match).toBe(42);
  });

  it('still ignores a rejection of an append other than the probe in flight', () => {
    const progress = new Progress(1, false, limits);
    progress.maybeUpdate(40);
    progress.becomeProbe();
    expect(progress.maybeDecreaseTo(35, 30)).toBe(false);
    expect(progress.match).toBe(40);
  });
});
