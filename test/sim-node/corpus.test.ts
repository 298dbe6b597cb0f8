/**
 * The fixed corpus CI runs: a few seeds of the whole-node simulator (three- and five-node
 * clusters, every fault kind) must end with no violation. A longer run is one command:
 * `npm run sim:node -- --seeds 200`.
 */
import { describe, expect, it } from 'vitest';
import { runNodeSimulation, type NodeSimOptions } from './node-simulation.js';

export const corpusSeeds = [1, 2, 3, 4, 5, 6];

describe('whole-node simulator corpus', () => {
  for (const seed of corpusSeeds) {
    it(`seed ${seed}: no violation, and the run did real work`, async () => {
      const result = await runNodeSimulation(seed, { isKeepingTrace: true });
      expect(result.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
      expect(result.stats.acknowledgedSends).toBeGreaterThan(20);
      expect(result.stats.delivered).toBeGreaterThan(20);
      expect(result.stats.faults).toBeGreaterThan(3);
    });
  }
});

/** Seeds that once found a bug, with the options they found it under (docs/architecture/simulator.md, "What it found"). */
export const regressionSeeds: ReadonlyArray<{
  readonly seed: number;
  readonly options: NodeSimOptions;
  readonly found: string;
}> = [
  { seed: 98, options: {}, found: "a member that missed another's addition had no address to answer it once it led" },
  { seed: 144, options: {}, found: 'the same, after whole-cluster power losses' },
  {
    seed: 47,
    options: { faultKinds: ['partition', 'crash', 'heal'] },
    found: 'a FIFO delete answered "expired" although its first attempt deleted the message',
  },
  {
    seed: 30,
    options: { profile: 'leaderChurn' },
    found: 'a message claimed again by a node whose queue index missed a claim its snapshot install brought',
  },
  {
    seed: 29,
    options: {
      profile: 'queueChurn',
      faultKinds: ['partition', 'heal', 'crash', 'powerLoss', 'clockJump', 'dropRate', 'membership'],
    },
    found: 'a node whose wall clock was stepped and corrected led with its cluster clock the step size ahead',
  },
];

describe('whole-node simulator regression seeds', () => {
  for (const { seed, options, found } of regressionSeeds) {
    it(`seed ${seed} (${found}): no violation`, async () => {
      const result = await runNodeSimulation(seed, { ...options, isKeepingTrace: true });
      expect(result.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
    });
  }
});
