// The whole-node simulator's command line (docs/architecture/simulator.md, "Simulating the whole node").
//   npm run sim:node -- --seeds N [--from S] [--fault NAME]
//   npm run sim:node -- --seed S [--trace] [--fault NAME]
// Exits 1, naming the failing seeds, when any run breaks a check; 2 on a usage error.
import { parseArgs } from 'node:util';
import { simCli } from './sim-cli.js';
import {
  chaosFaultKinds,
  nodeSimProfiles,
  plantedFaults,
  runNodeSimulation,
  type ChaosFaultKind,
  type NodeSimProfile,
  type NodeSimResult,
  type PlantedFault,
} from '../test/sim-node/node-simulation.js';
import { minimalTrace } from '../test/sim-node/minimal-trace.js';

const usage =
  'usage: npm run sim:node -- --seeds N [--from S] | --seed S [--trace]; options: --fault NAME (repeatable), --profile mixed|leaderChurn|queueChurn, --chaos-ms MS, --only-faults KIND,KIND, --stop-at-first';

const { fail, nonNegativeInteger } = simCli('sim-node', usage);

const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    from: { type: 'string' },
    seed: { type: 'string' },
    trace: { type: 'boolean', default: false },
    fault: { type: 'string', multiple: true },
    'chaos-ms': { type: 'string' },
    'only-faults': { type: 'string' },
    'stop-at-first': { type: 'boolean', default: false },
    profile: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const planted: PlantedFault[] = [];
for (const name of values.fault ?? []) {
  if (!plantedFaults.includes(name as PlantedFault))
    fail(`unknown fault '${name}' (one of ${plantedFaults.join(', ')})`);
  planted.push(name as PlantedFault);
}
let faultKinds: ChaosFaultKind[] | undefined;
if (values['only-faults'] !== undefined) {
  faultKinds = values['only-faults'].split(',').map((kind) => {
    if (!chaosFaultKinds.includes(kind as ChaosFaultKind))
      fail(`unknown fault kind '${kind}' (of ${chaosFaultKinds.join(', ')})`);
    return kind as ChaosFaultKind;
  });
}
const profile = values.profile;
if (profile !== undefined && !nodeSimProfiles.includes(profile as NodeSimProfile))
  fail(`unknown profile '${profile}' (one of ${nodeSimProfiles.join(', ')})`);
const options = {
  planted,
  ...(profile === undefined ? {} : { profile: profile as NodeSimProfile }),
  ...(values['chaos-ms'] === undefined
    ? {}
    : { chaosMs: nonNegativeInteger(values['chaos-ms'], '--chaos-ms', 20_000) }),
  ...(faultKinds === undefined ? {} : { faultKinds }),
};
const replayOptions = [
  ...planted.map((name) => ` --fault ${name}`),
  profile === undefined ? '' : ` --profile ${profile}`,
  values['chaos-ms'] === undefined ? '' : ` --chaos-ms ${values['chaos-ms']}`,
  faultKinds === undefined ? '' : ` --only-faults ${faultKinds.join(',')}`,
].join('');

function report(result: NodeSimResult): void {
  const shownMax = 8;
  for (const v of result.violations.slice(0, shownMax)) console.log(`seed ${result.seed}: ${v.kind}: ${v.message}`);
  if (result.violations.length > shownMax)
    console.log(`seed ${result.seed}: … and ${result.violations.length - shownMax} more violations`);
  if (result.violations.length > 0) {
    console.log(`  minimal trace of seed ${result.seed}:`);
    for (const line of minimalTrace(result)) console.log(`    ${line}`);
    console.log(`  replay: npm run sim:node -- --seed ${result.seed} --trace${replayOptions}`);
  }
}

if (values.seed !== undefined) {
  const seed = nonNegativeInteger(values.seed, '--seed', 1);
  const result = await runNodeSimulation(seed, { ...options, isKeepingTrace: true });
  if (values.trace) for (const line of result.trace) console.log(line);
  report(result);
  const s = result.stats;
  console.log(
    `sim-node: seed ${seed}: ${result.nodeCount} nodes, ${result.events} events, ${result.virtualMs} virtual ms, ${s.sends} sends (${s.acknowledgedSends} acknowledged), ${s.receives} receives (${s.delivered} messages), ${s.deletes} deletes, ${s.faults} faults (${s.crashes} crashes, ${s.powerLosses} power losses), ${s.snapshotInstalls} snapshot installs, trace hash ${result.traceHash}`,
  );
  console.log(`sim-node: 1 seeds, ${result.violations.length} violations`);
  process.exit(result.violations.length === 0 ? 0 : 1);
}

const count = nonNegativeInteger(values.seeds, '--seeds', 20);
const from = nonNegativeInteger(values.from, '--from', 1);
const startMs = performance.now();
let violations = 0;
let events = 0;
const failing: number[] = [];
for (let seed = from; seed < from + count; seed++) {
  const result = await runNodeSimulation(seed, { ...options, isKeepingTrace: true });
  events += result.events;
  if (result.violations.length > 0) {
    violations += result.violations.length;
    failing.push(seed);
    report(result);
    if (values['stop-at-first']) break;
  }
  const done = seed - from + 1;
  if (done % Math.max(1, Math.ceil(count / 10)) === 0)
    console.log(`sim-node: ${done}/${count} seeds, ${violations} violations so far`);
}
const seconds = (performance.now() - startMs) / 1000;
const ran = failing.length > 0 && values['stop-at-first'] ? (failing[failing.length - 1] as number) - from + 1 : count;
console.log(
  `sim-node: ${ran} seeds in ${seconds.toFixed(1)} s (${(ran / seconds).toFixed(2)} seeds/s, ${Math.round(events / seconds)} events/s)`,
);
if (failing.length > 0) console.log(`sim-node: failing seeds: ${failing.join(' ')}`);
console.log(`sim-node: ${ran} seeds, ${violations} violations`);
process.exit(violations === 0 ? 0 : 1);
