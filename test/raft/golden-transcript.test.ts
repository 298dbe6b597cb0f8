import { describe, expect, it } from 'vitest';
import { expectGoldenTranscript, isUpdatingGolden, unifiedDiff } from './support/golden-transcript.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe('golden transcript diff', () => {
  it('shows a changed line with three lines of context and the line numbers of both sides', () => {
    const before = lines(10);
    const after = [...before];
    after[4] = 'line 5 changed';
    expect(unifiedDiff(before, after).split('\n')).toEqual([
      '@@ -2,7 +2,7 @@',
      '  line 2',
      '  line 3',
      '  line 4',
      '- line 5',
      '+ line 5 changed',
      '  line 6',
      '  line 7',
      '  line 8',
    ]);
  });

  it('aligns around inserted and removed lines instead of reporting everything after them as changed', () => {
    const before = lines(30);
    const after = [...before.slice(0, 2), 'inserted', ...before.slice(2, 24), ...before.slice(25)];
    expect(unifiedDiff(before, after).split('\n')).toEqual([
      '@@ -1,5 +1,6 @@',
      '  line 1',
      '  line 2',
      '+ inserted',
      '  line 3',
      '  line 4',
      '  line 5',
      '@@ -22,7 +23,6 @@',
      '  line 22',
      '  line 23',
      '  line 24',
      '- line 25',
      '  line 26',
      '  line 27',
      '  line 28',
    ]);
  });

  it('keeps nearby changes in one hunk and shows lines added at the end', () => {
    const before = lines(6);
    const after = [...before.slice(0, 1), 'x', ...before.slice(2), 'tail'];
    expect(unifiedDiff(before, after).split('\n')).toEqual([
      '@@ -1,6 +1,7 @@',
      '  line 1',
      '- line 2',
      '+ x',
      '  line 3',
      '  line 4',
      '  line 5',
      '  line 6',
      '+ tail',
    ]);
  });

  it('is empty for equal transcripts', () => {
    expect(unifiedDiff(lines(5), lines(5))).toBe('');
  });
});

describe('golden transcript check', () => {
  it.skipIf(isUpdatingGolden())('refuses a scenario without a checked-in transcript and says how to write one', () => {
    expect(() => expectGoldenTranscript('no-such-scenario', ['> campaign 1'])).toThrow(
      'no golden transcript test/raft/testdata/no-such-scenario.txt: run `npm run test:golden-update` to write it',
    );
  });

  it('refuses a name that would not make a plain file name', () => {
    expect(() => expectGoldenTranscript('../escape', [])).toThrow(/lowercase words joined by '-'/);
  });
});
