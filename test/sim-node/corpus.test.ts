/**
 * The fixed corpus CI runs: a few seeds of the whole-node simulator (three- and five-node
 * clusters, every fault kind) must end with no violation. A longer run is one command:
 * `npm run sim:node -- --seeds 200`.
 */
import { describe, expect, it } from 'vitest';
import { runNodeSimulation } from './node-simulation.js';

export const corpusSeeds = [1, 2, 3, 4, 5, 6];
/**
 * Seeds that once failed, kept so they stay fixed: 98 and 144, a member that missed another's
 * addition had no address to answer it once it led (the envelope now carries the sender's).
 */
export const regressionSeeds = [98, 144];

describe('whole-node simulator corpus', () => {
  for (const seed of [...corpusSeeds, ...regressionSeeds]) {
    it(`seed ${seed}: no violation, and the run did real work`, async () => {
      const result = await runNodeSimulation(seed, { isKeepingTrace: true });
      expect(result.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
      expect(result.stats.acknowledgedSends).toBeGreaterThan(20);
      expect(result.stats.delivered).toBeGreaterThan(20);
      expect(result.stats.faults).toBeGreaterThan(3);
    });
  }
});
