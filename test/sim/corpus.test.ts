import { describe, expect, it } from 'vitest';
import { runSeeds } from './run-seeds.js';

// The fixed corpus CI runs: seeds 1..256 (three- and five-node mixed runs, and one seed in four
// a leader-churn run). Any failure names its seed; `npm run sim -- --seed S --trace` replays it.
const corpusSeedsPerTest = 64;
const corpusTests = 4;

describe('the fixed simulation corpus', () => {
  for (let part = 0; part < corpusTests; part++) {
    const from = 1 + part * corpusSeedsPerTest;
    const to = from + corpusSeedsPerTest - 1;
    it(`seeds ${from}..${to} break no invariant and every run acknowledges client writes`, () => {
      let acknowledgedRuns = 0;
      const summary = runSeeds({
        from,
        count: corpusSeedsPerTest,
        onResult: (result) => {
          if (result.acks > 0) acknowledgedRuns += 1;
        },
      });
      expect(
        summary.violations.map((v) => `seed ${v.seed}, event ${v.eventNumber}: ${v.invariant}: ${v.message}`),
      ).toEqual([]);
      expect(summary.seeds).toBe(corpusSeedsPerTest);
      // A corpus where nothing gets acknowledged would check durability against nothing.
      expect(acknowledgedRuns).toBe(corpusSeedsPerTest);
    }, 120_000);
  }
});
