import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { LearnerPromotion, type LeaderProgressView } from '../../src/cluster/learner-promotion.js';

const recentWindowMs = 3_000;

function rule(clock: ManualClock): LearnerPromotion {
  return new LearnerPromotion({ clock, recentWindowMs, catchUpEntries: 64 });
}

/** The leader n1's view: `learners` with their match indexes, n1 itself a voter at lastIndex. */
function view(options: {
  term?: number;
  lastIndex: number;
  learners: Record<string, number>;
  voters?: string[];
}): LeaderProgressView {
  const voters = options.voters ?? ['n1'];
  const progress = new Map<string, { match: number }>(voters.map((id) => [id, { match: options.lastIndex }]));
  for (const [id, match] of Object.entries(options.learners)) progress.set(id, { match });
  return {
    term: options.term ?? 2,
    lastIndex: options.lastIndex,
    confState: { voters, learners: Object.keys(options.learners) },
    progress,
  };
}

describe('LearnerPromotion', () => {
  it('never promotes a learner that has acknowledged nothing, however young the log (the one-node cluster that lost its quorum)', () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    // A one-node cluster just after `members add n2`: the log holds 3 entries, n2 answered nothing.
    for (let round = 0; round < 100; round++) {
      expect(promotion.nextToPromote(view({ lastIndex: 3, learners: { n2: 0 } }))).toBeNull();
      clock.advanceMs(100);
    }
    expect(promotion.learners(view({ lastIndex: 3, learners: { n2: 0 } }))).toEqual([
      { nodeId: 'n2', match: 0, targetIndex: 3, lastHeardAgoMs: null },
    ]);
  });

  it('does not promote a learner that answers but has not acknowledged the index the leader had when it first saw it', () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    expect(promotion.nextToPromote(view({ lastIndex: 40, learners: { n2: 0 } }))).toBeNull();
    promotion.heardFrom('n2');
    // Within 64 entries of the last index (40), but short of the target (40).
    expect(promotion.nextToPromote(view({ lastIndex: 40, learners: { n2: 39 } }))).toBeNull();
    promotion.heardFrom('n2');
    expect(promotion.nextToPromote(view({ lastIndex: 41, learners: { n2: 40 } }))).toEqual({
      nodeId: 'n2',
      match: 40,
      targetIndex: 40,
      lastHeardAgoMs: 0,
    });
  });

  it('does not promote a learner that caught up once but has not answered within the window', () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 0 } }))).toBeNull();
    promotion.heardFrom('n2');
    clock.advanceMs(recentWindowMs + 1);
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 10 } }))).toBeNull();
    expect(promotion.learners(view({ lastIndex: 10, learners: { n2: 10 } }))[0]?.lastHeardAgoMs).toBe(
      recentWindowMs + 1,
    );
    promotion.heardFrom('n2');
    clock.advanceMs(recentWindowMs);
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 10 } }))?.nodeId).toBe('n2');
  });

  it('counts no answer as recent after the clock went backwards, until the learner answers again', () => {
    const clock = new ManualClock(50_000);
    const promotion = rule(clock);
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 0 } }))).toBeNull();
    promotion.heardFrom('n2');
    clock.setMs(20_000);
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 10 } }))).toBeNull();
    promotion.heardFrom('n2');
    expect(promotion.nextToPromote(view({ lastIndex: 10, learners: { n2: 10 } }))?.nodeId).toBe('n2');
  });

  it('does not promote a learner lagging more than catchUpEntries behind the last index', () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    expect(promotion.nextToPromote(view({ lastIndex: 100, learners: { n2: 0 } }))).toBeNull();
    promotion.heardFrom('n2');
    expect(promotion.nextToPromote(view({ lastIndex: 200, learners: { n2: 120 } }))).toBeNull();
    expect(promotion.nextToPromote(view({ lastIndex: 200, learners: { n2: 136 } }))?.nodeId).toBe('n2');
  });

  it("sets a new target in a new term (a new leader's progress starts over), and forgets members that left", () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    expect(promotion.learners(view({ term: 2, lastIndex: 10, learners: { n2: 0 } }))[0]?.targetIndex).toBe(10);
    expect(promotion.learners(view({ term: 2, lastIndex: 30, learners: { n2: 0 } }))[0]?.targetIndex).toBe(10);
    expect(promotion.learners(view({ term: 3, lastIndex: 31, learners: { n2: 0 } }))[0]?.targetIndex).toBe(31);
    // n2 removed, then added again under the same id: it starts from a new target.
    promotion.heardFrom('n2');
    expect(promotion.learners(view({ term: 3, lastIndex: 32, learners: {} }))).toEqual([]);
    expect(promotion.learners(view({ term: 3, lastIndex: 40, learners: { n2: 0 } }))).toEqual([
      { nodeId: 'n2', match: 0, targetIndex: 40, lastHeardAgoMs: null },
    ]);
  });

  it('picks ready learners in id order and skips those that are not', () => {
    const clock = new ManualClock(1_000);
    const promotion = rule(clock);
    promotion.learners(view({ lastIndex: 5, learners: { n2: 0, n3: 0 } }));
    promotion.heardFrom('n3');
    expect(promotion.nextToPromote(view({ lastIndex: 6, learners: { n2: 0, n3: 6 } }))?.nodeId).toBe('n3');
    promotion.heardFrom('n2');
    expect(promotion.nextToPromote(view({ lastIndex: 6, learners: { n2: 5, n3: 6 } }))?.nodeId).toBe('n2');
  });
});
