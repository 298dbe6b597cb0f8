// The deterministic cluster simulator's command line (docs/architecture/simulator.md).
//   npm run sim -- --seeds N [--from S] [--fault NAME] [--profile mixed|leaderChurn]
//   npm run sim -- --seed S --trace [--fault NAME] [--profile mixed|leaderChurn]
// Exits non-zero, naming the failing seeds, when any run breaks an invariant.
import { parseArgs } from 'node:util';
import { simCli } from './sim-cli.js';
import { runSeed, runSeeds } from '../test/sim/run-seeds.js';
import { simFaultNames, type SimConfig, type SimFaultName, type SimProfile } from '../test/sim/sim-config.js';
import type { SimViolation } from '../test/sim/simulation.js';

const usage =
  'usage: npm run sim -- --seeds N [--from S] | --seed S [--trace]; options: --fault NAME, --profile mixed|leaderChurn';

const { fail, nonNegativeInteger } = simCli('sim', usage);

/** The options a replay needs besides the seed, so that the printed command reproduces the run. */
let replayOptions = '';

function describeViolation(v: SimViolation): string {
  return `seed ${v.seed}, event ${v.eventNumber}: ${v.invariant}: ${v.message}\n  replay: npm run sim -- --seed ${v.seed} --trace${replayOptions}`;
}

const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    from: { type: 'string' },
    seed: { type: 'string' },
    trace: { type: 'boolean', default: false },
    fault: { type: 'string', multiple: true },
    profile: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const faults: Partial<Record<SimFaultName, boolean>> = {};
for (const name of values.fault ?? []) {
  if (!simFaultNames.includes(name as SimFaultName))
    fail(`unknown fault '${name}' (one of ${simFaultNames.join(', ')})`);
  faults[name as SimFaultName] = true;
}
const overrides: Partial<SimConfig> = Object.keys(faults).length > 0 ? { faults } : {};
const profile = values.profile as SimProfile | undefined;
if (profile !== undefined && profile !== 'mixed' && profile !== 'leaderChurn') fail(`unknown profile '${profile}'`);
const runOptions = { overrides, ...(profile === undefined ? {} : { profile }) };
replayOptions = [
  ...Object.keys(faults).map((name) => ` --fault ${name}`),
  profile === undefined ? '' : ` --profile ${profile}`,
].join('');

if (values.seed !== undefined) {
  const seed = nonNegativeInteger(values.seed, '--seed', 1);
  const result = runSeed(seed, { isKeepingTrace: values.trace, ...runOptions });
  if (values.trace) for (const line of result.traceLines) console.log(line);
  console.log(
    `sim: seed ${seed}: ${result.clusterSize} nodes, ${result.events} events, ${result.ticks} ticks, ${result.acks} acknowledged values, trace hash ${result.traceHash}`,
  );
  if (result.violation !== null) console.log(describeViolation(result.violation));
  console.log(`sim: 1 seeds, ${result.violation === null ? 0 : 1} violations`);
  process.exit(result.violation === null ? 0 : 1);
}

const count = nonNegativeInteger(values.seeds, '--seeds', 100);
const from = nonNegativeInteger(values.from, '--from', 1);
const progressEvery = Math.max(1, Math.ceil(count / 10));
const startMs = performance.now();
let done = 0;
let violationsSoFar = 0;
const summary = runSeeds({
  from,
  count,
  ...runOptions,
  onResult: (result) => {
    done += 1;
    if (result.violation !== null) {
      violationsSoFar += 1;
      console.log(`sim: violation: ${describeViolation(result.violation)}`);
    }
    if (done % progressEvery === 0 || done === count)
      console.log(`sim: ${done}/${count} seeds, ${violationsSoFar} violations`);
  },
});
const elapsedSeconds = (performance.now() - startMs) / 1000;
console.log(
  `sim: seeds ${from}..${from + count - 1}: ${summary.events} events in ${elapsedSeconds.toFixed(1)} s ` +
    `(${(summary.seeds / elapsedSeconds).toFixed(1)} seeds/s, ${Math.round(summary.events / elapsedSeconds)} events/s)`,
);
if (summary.violations.length > 0)
  console.log(`sim: failing seeds: ${summary.violations.map((v) => v.seed).join(' ')}`);
console.log(`sim: ${summary.seeds} seeds, ${summary.violations.length} violations`);
process.exit(summary.violations.length === 0 ? 0 : 1);
