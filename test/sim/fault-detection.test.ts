import { describe, expect, it } from 'vitest';
import { runSeeds } from './run-seeds.js';
import type { SimFaultName, SimProfile } from './sim-config.js';
import type { InvariantName } from './invariants/invariant-violation-error.js';

interface FaultCase {
  readonly fault: SimFaultName;
  readonly profile?: SimProfile;
  /** The simulator must report a violation within this many seeds. */
  readonly seedsMax: number;
  /** Invariants through which this fault is expected to show. */
  readonly invariants: readonly InvariantName[];
}

// Each deliberate fault breaks one rule; the simulator must notice within a bounded number of
// seeds, and through an invariant that the broken rule protects (not only a crash of the core).
const cases: readonly FaultCase[] = [
  // Figure 8 needs quick successions of leaders with diverging tails: the leader-churn profile.
  {
    fault: 'commitPreviousTermByCounting',
    profile: 'leaderChurn',
    seedsMax: 80,
    invariants: ['leaderCompleteness', 'stateMachineSafety', 'durability'],
  },
  {
    fault: 'grantVoteTwicePerTerm',
    seedsMax: 20,
    invariants: ['electionSafety', 'leaderCompleteness', 'stateMachineSafety', 'durability'],
  },
  {
    fault: 'skipLogUpToDateCheck',
    seedsMax: 20,
    invariants: ['leaderCompleteness', 'stateMachineSafety', 'durability'],
  },
  {
    fault: 'sendBeforePersist',
    seedsMax: 20,
    invariants: ['persistBeforeSend', 'electionSafety', 'leaderCompleteness', 'stateMachineSafety', 'durability'],
  },
];

describe('the simulator catches deliberate faults', () => {
  for (const { fault, profile, seedsMax, invariants } of cases) {
    it(`${fault}: a violation within ${seedsMax} seeds${profile === undefined ? '' : ` of the ${profile} profile`}`, () => {
      const summary = runSeeds({
        from: 1,
        count: seedsMax,
        overrides: { faults: { [fault]: true } },
        ...(profile === undefined ? {} : { profile }),
        isStoppingAtFirstViolation: true,
      });
      const [violation] = summary.violations;
      expect(violation, `no violation in ${summary.seeds} seeds`).toBeDefined();
      expect(invariants).toContain(violation?.invariant);
    }, 120_000);
  }
});
