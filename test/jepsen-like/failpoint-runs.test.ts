import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FailpointName } from '../../src/cli/failpoint-names.js';
import { runJepsen } from '../../jepsen-like/runner/run-jepsen.js';
import { defaultRunOptions, type RunOptions, type WorkloadName } from '../../jepsen-like/runner/run-options.js';
import type { RunResults } from '../../jepsen-like/report/run-results.js';
import { ciSeedBase } from './ci-seed.js';

// The SDK warns that its future versions need Node 22; the project runs Node 20 on purpose.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

// One short run per failpoint: the first node runs with a bug on purpose (raftq serve
// --test-failpoint), no nemesis, and the run must come out INVALID for that bug's reason. A
// harness that stops seeing bugs fails here.
const cliPath = resolve('dist/src/cli/main.js');
const isCliBuilt = existsSync(cliPath);
const skipReason = isCliBuilt ? '' : ` (skipped: ${cliPath} is not built; run npm run build)`;

type CheckerFields = Record<string, Record<string, unknown>>;
const checkersOf = (r: RunResults, workload: string): CheckerFields =>
  (r.workloads[workload]?.checkers ?? {}) as unknown as CheckerFields;

const cases: ReadonlyArray<{
  failpoint: FailpointName;
  workload: WorkloadName;
  fifoGroups?: number;
  reason: string;
  isCaught: (r: RunResults) => boolean;
}> = [
  {
    failpoint: 'drop-acked-send',
    workload: 'queue',
    reason: 'acknowledged sends are lost',
    isCaught: (r) => Number(checkersOf(r, 'queue')['total-queue']?.['lostCount']) > 0,
  },
  {
    failpoint: 'fifo-reorder',
    workload: 'fifo',
    // One group, so a receive that finds the group free returns several of its messages for the
    // failpoint to swap (with more groups a short run can pass without one such receive).
    fifoGroups: 1,
    reason: 'a group is delivered out of order',
    isCaught: (r) => Number(checkersOf(r, 'fifo')['fifo']?.['orderViolationCount']) > 0,
  },
  {
    failpoint: 'stale-read',
    workload: 'queue',
    reason: 'a message is delivered twice within its visibility timeout, or its receive count stalls',
    isCaught: (r) =>
      Number(checkersOf(r, 'queue')['visibility']?.['secondDeliveryCount']) > 0 ||
      Number(checkersOf(r, 'queue')['redelivery']?.['receiveCountStallCount']) > 0,
  },
  {
    failpoint: 'node-assert',
    workload: 'queue',
    reason: 'a node died unasked, with an assertion in its log',
    isCaught: (r) =>
      r.cluster.problems.some((p) => p.startsWith('node died unasked: n1')) &&
      r.cluster.problems.some((p) => p.includes('AssertionFailedError')),
  },
];

function failpointRun(
  failpoint: FailpointName,
  workload: WorkloadName,
  seed: number,
  fifoGroups: number | undefined,
): RunOptions {
  return {
    ...defaultRunOptions,
    timeSeconds: 8,
    nemesis: [],
    workloads: [workload],
    failpoint,
    seed,
    name: `ci-failpoint-${failpoint}`,
    storeDir: 'jepsen-like/store',
    // No clock faults: the allowance stays at 1 s.
    visibilityTimeoutSeconds: 4,
    sendsPerSecond: 30,
    fifoGroups: fifoGroups ?? defaultRunOptions.fifoGroups,
    drainSecondsMax: 40,
    isQuiet: true,
  };
}

describe.skipIf(!isCliBuilt)(`short jepsen-like runs with a failpoint each${skipReason}`, () => {
  const seedBase = ciSeedBase();
  cases.forEach(({ failpoint, workload, fifoGroups, reason, isCaught }, i) => {
    it(`a run whose first node has ${failpoint} is invalid: ${reason}`, async () => {
      const lines: string[] = [];
      const seed = seedBase + i;
      const outcome = await runJepsen(failpointRun(failpoint, workload, seed, fifoGroups), (line) => lines.push(line));
      const summary = `seed ${seed}\n${outcome.verdictLine}\n${lines.slice(-10).join('\n')}\nrun errors: ${outcome.results.runErrors.join('; ')}`;
      expect(outcome.results.valid, summary).toBe(false);
      expect(isCaught(outcome.results), summary).toBe(true);
    }, 180_000);
  });
});
