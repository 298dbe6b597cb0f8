import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeConfChange, encodeConfChange } from '../../src/raft/conf-change.js';
import { Inflights } from '../../src/raft/inflights.js';
import { Progress } from '../../src/raft/progress.js';
import { ProgressTracker } from '../../src/raft/progress-tracker.js';

const limits = { inflightMessagesMax: 4, inflightBytesMax: 1_000 };

describe('Inflights', () => {
  it('is full at the message limit or at the byte limit, whichever comes first', () => {
    const byCount = new Inflights(2, 1_000);
    byCount.add(1, 10);
    expect(byCount.isFull()).toBe(false);
    byCount.add(2, 10);
    expect(byCount.isFull()).toBe(true);
    const byBytes = new Inflights(10, 100);
    byBytes.add(1, 60);
    byBytes.add(2, 60);
    expect(byBytes.isFull()).toBe(true);
    byBytes.freeLE(1);
    expect(byBytes.isFull()).toBe(false);
    expect(byBytes.bytes()).toBe(60);
  });

  it('frees exactly the messages acknowledged, oldest first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 30 }),
        fc.nat(200),
        (gaps, ackAt) => {
          const inflights = new Inflights(1_000, Number.MAX_SAFE_INTEGER);
          let index = 0;
          const sent: number[] = [];
          for (const gap of gaps) {
            index += gap;
            inflights.add(index, gap);
            sent.push(index);
          }
          inflights.freeLE(ackAt);
          expect(inflights.count()).toBe(sent.filter((i) => i > ackAt).length);
        },
      ),
    );
  });
});

describe('Progress', () => {
  it('ignores a stale rejection in probe state and backs off to the hint on a fresh one', () => {
    const progress = new Progress(11, false, limits);
    expect(progress.maybeDecreaseTo(5, 3)).toBe(false);
    expect(progress.maybeDecreaseTo(10, 3)).toBe(true);
    expect(progress.next).toBe(4);
  });

  it('in replicate state falls back to match + 1 on a rejection above match', () => {
    const progress = new Progress(1, false, limits);
    progress.maybeUpdate(5);
    progress.becomeReplicate();
    progress.sentEntries(3, 8, 30);
    expect(progress.maybeDecreaseTo(4, 0)).toBe(false);
    expect(progress.maybeDecreaseTo(7, 0)).toBe(true);
    expect(progress.next).toBe(6);
  });

  it('after a snapshot resumes probing past the snapshot', () => {
    const progress = new Progress(1, false, limits);
    progress.becomeSnapshot(50);
    expect(progress.isPaused()).toBe(true);
    progress.becomeProbe();
    expect(progress.next).toBe(51);
  });
});

describe('ProgressTracker', () => {
  it('commits at the highest index a majority of voters holds, ignoring learners', () => {
    const tracker = new ProgressTracker({ voters: ['1', '2', '3', '4', '5'], learners: ['6'] }, 1, limits);
    const matches: Record<string, number> = { '1': 9, '2': 7, '3': 5, '4': 3, '5': 1, '6': 100 };
    for (const [id, match] of Object.entries(matches)) tracker.progress.get(id)!.maybeUpdate(match);
    expect(tracker.committedIndex()).toBe(5);
  });

  it('decides an election as soon as the outcome is certain', () => {
    const tracker = new ProgressTracker({ voters: ['1', '2', '3', '4'], learners: ['5'] }, 1, limits);
    tracker.recordVote('1', true);
    tracker.recordVote('5', true);
    tracker.recordVote('2', true);
    expect(tracker.tallyVotes().result).toBe('pending');
    tracker.recordVote('3', false);
    tracker.recordVote('4', false);
    expect(tracker.tallyVotes()).toEqual({ granted: 2, rejected: 2, result: 'lost' });
  });
});

describe('conf change encoding', () => {
  it('round-trips every change', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('addLearner' as const, 'addVoter' as const, 'removeNode' as const),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.uint8Array({ maxLength: 64 }),
        (kind, nodeId, context) => {
          const change = { kind, nodeId, context };
          expect(decodeConfChange(encodeConfChange(change))).toEqual(change);
        },
      ),
    );
  });
});
