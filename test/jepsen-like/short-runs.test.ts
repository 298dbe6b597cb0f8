import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NemesisFamily } from '../../jepsen-like/nemesis/fault-spec.js';
import { runJepsen } from '../../jepsen-like/runner/run-jepsen.js';
import { defaultRunOptions, type RunOptions } from '../../jepsen-like/runner/run-options.js';

// The SDK warns that its future versions need Node 22; the project runs Node 20 on purpose.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

// One short run of the real harness per nemesis family, against real `raftq serve` processes:
// any invalid (or undecidable) result fails the test, and the run's store
// (jepsen-like/store/ci-<family>/) keeps the history, node logs and report for whoever looks next.
const cliPath = resolve('dist/src/cli/main.js');
const isCliBuilt = existsSync(cliPath);
const skipReason = isCliBuilt ? '' : ` (skipped: ${cliPath} is not built; run npm run build)`;

const families: Array<{ family: NemesisFamily; seed: number }> = [
  { family: 'partition', seed: 101 },
  { family: 'kill', seed: 102 },
  { family: 'pause', seed: 103 },
  { family: 'clock', seed: 104 },
  { family: 'membership', seed: 105 },
  { family: 'corrupt', seed: 106 },
];

function shortRun(family: NemesisFamily, seed: number): RunOptions {
  return {
    ...defaultRunOptions,
    timeSeconds: 16,
    nemesis: [family],
    workloads: ['queue', 'fifo'],
    seed,
    name: `ci-${family}`,
    storeDir: 'jepsen-like/store',
    visibilityTimeoutSeconds: 4,
    sendsPerSecond: 25,
    warmupSeconds: 2,
    faultSecondsMin: 3,
    faultSecondsMax: 6,
    quietSecondsMin: 1,
    quietSecondsMax: 3,
    drainSecondsMax: 60,
    isQuiet: true,
  };
}

describe.skipIf(!isCliBuilt)(`short jepsen-like runs, one per nemesis family${skipReason}`, () => {
  for (const { family, seed } of families) {
    it(`a ${family} run of queue and fifo workloads loses nothing and keeps every checker valid`, async () => {
      const lines: string[] = [];
      const outcome = await runJepsen(shortRun(family, seed), (line) => lines.push(line));
      const summary = `${outcome.verdictLine}\n${lines.slice(-12).join('\n')}\nrun errors: ${outcome.results.runErrors.join('; ')}`;
      expect(outcome.results.nemesis.faultsInjected + outcome.results.nemesis.skipped.length, summary).toBeGreaterThan(0);
      expect(outcome.results.valid, summary).toBe(true);
    }, 240_000);
  }
});
