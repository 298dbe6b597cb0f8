/**
 * Each planted fault is caught: its first catching seed (measured with
 * `npm run sim:node -- --seeds 200 --fault NAME --stop-at-first`, docs/architecture/simulator.md)
 * reports a violation of a kind the broken rule protects, and the same seed without the fault
 * passes (seeds 1–6 are the corpus, corpus.test.ts; seed 1 of the queueChurn profile is checked
 * here).
 */
import { describe, expect, it } from 'vitest';
import type { QueueViolation } from './queue-checkers.js';
import { runNodeSimulation, type NodeSimOptions, type PlantedFault } from './node-simulation.js';

const firstCatchingSeed: ReadonlyArray<{
  fault: PlantedFault;
  seed: number;
  kinds: ReadonlyArray<QueueViolation['kind']>;
  options?: NodeSimOptions;
}> = [
  // Votes and entries a power loss takes back: replicas diverge, the core asserts, messages are lost.
  { fault: 'ack-before-fsync', seed: 2, kinds: ['lostAcknowledged', 'fifoOrder', 'digestMismatch'] },
  // Entries applied before they commit, then overwritten by a new leader: replicas diverge.
  { fault: 'apply-before-commit', seed: 1, kinds: ['digestMismatch'] },
  // The state a power loss takes back lies behind the compacted log: the node cannot restart.
  { fault: 'compact-past-flush', seed: 3, kinds: ['nodeFatal'] },
  // A send or claim that read the queue's meta before a DeleteQueue commits after it, into the
  // deleted generation (`--profile queueChurn`: the queue is deleted and created again and again).
  {
    fault: 'skip-read-validation',
    seed: 1,
    kinds: ['deadGenerationWrite'],
    options: { profile: 'queueChurn' },
  },
];

describe('planted faults are caught', () => {
  it('seed 1 of the queueChurn profile passes without a planted fault', async () => {
    const result = await runNodeSimulation(1, { profile: 'queueChurn' });
    expect(result.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
  });

  for (const { fault, seed, kinds, options } of firstCatchingSeed) {
    it(`${fault}: seed ${seed}${options?.profile === undefined ? '' : ` (${options.profile})`}`, async () => {
      const result = await runNodeSimulation(seed, { ...options, planted: [fault] });
      expect(result.violations.length).toBeGreaterThan(0);
      expect(
        result.violations.some((v) => kinds.includes(v.kind)),
        result.violations.map((v) => v.kind).join(','),
      ).toBe(true);
    });
  }
});
