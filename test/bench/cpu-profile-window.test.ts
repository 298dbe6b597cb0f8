import { describe, expect, it } from 'vitest';
import { summarizeCpuProfile, type CpuProfile } from '../../bench/profile/cpu-profile-summary.js';
import { parseBeforeEndFlag, windowBeforeEnd } from '../../bench/profile/cpu-profile-window.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

/** One sample a second for ten seconds: a pre-fill's sends for six, then claims for four. */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 3]),
    frame(2, 'sendMessages', 'file:///x/dist/src/queue/send-messages.js'),
    frame(3, 'claim', 'file:///x/dist/src/queue/claim-messages.js'),
  ],
  samples: [2, 2, 2, 2, 2, 2, 3, 3, 3, 3],
  timeDeltas: Array.from({ length: 10 }, () => 1_000_000),
};

describe('a CPU profile cut to a stretch before its end', () => {
  it('keeps only the samples of that stretch, each with its own time', () => {
    const last = windowBeforeEnd(profile, 3.5, 0);
    expect(last.samples).toEqual([3, 3, 3, 3]);
    expect(summarizeCpuProfile(last, { byCaller: false }).byFunction.map((t) => [t.name, t.selfMs])).toEqual([
      ['claim src/queue/claim-messages.js:1', 4_000],
    ]);
    // Samples at 1 s to 10 s: 5.5 to 1.5 s before the end is 4.5 s to 8.5 s, the samples at 5, 6, 7 and 8 s.
    expect(windowBeforeEnd(profile, 5.5, 1.5).samples).toEqual([2, 2, 3, 3]);
  });

  it('refuses a stretch that is empty or reversed, and reads the flag', () => {
    expect(() => windowBeforeEnd(profile, 1, 2)).toThrow(RangeError);
    expect(() => windowBeforeEnd(profile, Number.NaN, 0)).toThrow(RangeError);
    expect(parseBeforeEndFlag(['--by-caller', '--before-end=5.5:1.5'])).toEqual({ fromS: 5.5, toS: 1.5 });
    expect(parseBeforeEndFlag(['--before-end=4'])).toEqual({ fromS: 4, toS: 0 });
    expect(parseBeforeEndFlag(['--inclusive'])).toBeUndefined();
  });
});
