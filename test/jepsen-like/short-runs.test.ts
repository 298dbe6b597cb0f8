import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NemesisFamily } from '../../jepsen-like/nemesis/fault-spec.js';
import { runJepsen } from '../../jepsen-like/runner/run-jepsen.js';
import { defaultRunOptions, type RunOptions } from '../../jepsen-like/runner/run-options.js';
import { ciSeedBase } from './ci-seed.js';

// The SDK warns that its future versions need Node 22; the project runs Node 20 on purpose.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

// Short runs of the real harness against real `raftq serve` processes, all three workloads, one
// run per nemesis family (paired with a second family it may overlap with, where one can share
// the time). Any invalid or undecided result fails the test, and so does a run that checked too
// little to mean anything: faults not injected, no acknowledged sends, no deliveries, no groups,
// no metadata operations, a visibility window eaten by the clock allowance. The seeds rotate
// (ci-seed.ts) and each run's store (jepsen-like/store/ci-<families>/) keeps the history, node
// logs and report for whoever looks next.
const cliPath = resolve('dist/src/cli/main.js');
const isCliBuilt = existsSync(cliPath);
const skipReason = isCliBuilt ? '' : ` (skipped: ${cliPath} is not built; run npm run build)`;

const runs: ReadonlyArray<readonly NemesisFamily[]> = [
  ['partition', 'kill'],
  ['kill', 'pause'],
  ['pause', 'partition'],
  ['clock', 'latency'],
  ['membership'],
  ['corrupt'],
];

// Long enough that a clock behind and a later clock ahead (each up to clockOffsetMsMax) plus the base
// allowance still leave visibilityWindowMsMin to check.
const visibilityTimeoutSeconds = 8;
/** The shortest window the visibility checks may be left with once the clock allowance is taken off. */
const visibilityWindowMsMin = 3_000;

/**
 * Operations each checker must have had, so that a valid verdict is not a vacuous one. The fault
 * phase lasts a fixed time, in which an idle machine does hundreds and a machine running a
 * 10-minute run beside CI once did 17 metadata operations; so the runner keeps the clients going
 * past it until every workload has this many (`opsPerWorkloadMin`), and the bound is met on any
 * machine that is not stuck.
 */
const checkedOpsMin = 20;

function shortRun(nemesis: readonly NemesisFamily[], seed: number): RunOptions {
  return {
    ...defaultRunOptions,
    timeSeconds: 16,
    nemesis,
    workloads: ['queue', 'fifo', 'metadata'],
    seed,
    name: `ci-${nemesis.join('-')}`,
    storeDir: 'jepsen-like/store',
    visibilityTimeoutSeconds,
    sendsPerSecond: 25,
    warmupSeconds: 2,
    faultSecondsMin: 3,
    faultSecondsMax: 5,
    quietSecondsMin: 1,
    quietSecondsMax: 3,
    overlapOneIn: 2,
    // 1 s base allowance + 2 s: leaves the visibility checks 3 s of a 6 s timeout.
    clockOffsetMsMax: 2_000,
    drainSecondsMax: 60,
    isQuiet: true,
    // A run on a busy machine keeps its clients going, healed, until the checkers have enough.
    opsPerWorkloadMin: checkedOpsMin + 1,
  };
}

type CheckerFields = Record<string, Record<string, unknown>>;

describe.skipIf(!isCliBuilt)(`short jepsen-like runs, one per nemesis family${skipReason}`, () => {
  const seedBase = ciSeedBase();
  runs.forEach((nemesis, i) => {
    const seed = seedBase + i;
    it(`a ${nemesis.join('+')} run of the queue, fifo and metadata workloads loses nothing and keeps every checker valid`, async () => {
      const lines: string[] = [];
      const outcome = await runJepsen(shortRun(nemesis, seed), (line) => lines.push(line));
      const r = outcome.results;
      const summary = `seed ${seed} (JEPSEN_SEED=${seedBase} replays this set)\n${outcome.verdictLine}\n${lines.slice(-12).join('\n')}\nrun errors: ${r.runErrors.join('; ')}\ncluster: ${r.cluster.problems.join('; ')}`;
      expect(r.valid, summary).toBe(true);
      // Every scheduled fault was injected, of every family the run names.
      expect(r.nemesis.skipped, summary).toEqual([]);
      expect(r.nemesis.faultsScheduled ?? 0, summary).toBeGreaterThanOrEqual(2);
      expect(r.nemesis.faultsInjected, summary).toBe(r.nemesis.faultsScheduled);
      for (const family of nemesis) expect(r.nemesis.byFamily[family] ?? 0, `${family}: ${summary}`).toBeGreaterThan(0);
      // The checkers had something to check.
      for (const name of ['queue', 'fifo']) {
        const c = r.workloads[name]?.checkers as unknown as CheckerFields;
        expect(c['total-queue']?.['acknowledgedCount'], `${name} acknowledged sends: ${summary}`).toBeGreaterThan(
          checkedOpsMin,
        );
        expect(c['visibility']?.['deliveriesChecked'], `${name} deliveries: ${summary}`).toBeGreaterThan(checkedOpsMin);
        const windowMs = visibilityTimeoutSeconds * 1000 - Number(c['visibility']?.['clockAllowanceMs']);
        expect(windowMs, `${name} visibility window: ${summary}`).toBeGreaterThanOrEqual(visibilityWindowMsMin);
      }
      const fifo = r.workloads['fifo']?.checkers as unknown as CheckerFields;
      expect(fifo['fifo']?.['groups'], summary).toBe(defaultRunOptions.fifoGroups);
      expect(fifo['fifo']?.['deliveriesChecked'], summary).toBeGreaterThan(checkedOpsMin);
      const metadata = r.workloads['metadata'];
      expect(metadata?.operations['metadata']?.['ok'] ?? 0, summary).toBeGreaterThan(checkedOpsMin);
      expect((metadata?.checkers as unknown as CheckerFields)['linearizability']?.['verdict'], summary).toBe(
        'linearizable',
      );
    }, 240_000);
  });
});
