import { parseArgs } from 'node:util';
import { failpointNames, isFailpointName, type FailpointName } from '../../src/cli/failpoint-names.js';
import { nemesisFamilies, type NemesisFamily } from '../nemesis/fault-spec.js';

export const workloadNames = ['queue', 'fifo', 'metadata'] as const;
export type WorkloadName = (typeof workloadNames)[number];

export interface RunOptions {
  /** Seconds of workload under faults; heal and drain come after. */
  readonly timeSeconds: number;
  readonly nemesis: readonly NemesisFamily[];
  readonly workloads: readonly WorkloadName[];
  readonly seed: number;
  readonly nodes: number;
  readonly storeDir: string;
  readonly name: string | undefined;
  readonly cliPath: string;
  readonly visibilityTimeoutSeconds: number;
  /** Sends per second per queue workload. */
  readonly sendsPerSecond: number;
  readonly producers: number;
  readonly consumers: number;
  readonly fifoGroups: number;
  readonly metadataOpsPerSecond: number;
  readonly faultSecondsMin: number;
  readonly faultSecondsMax: number;
  readonly quietSecondsMin: number;
  readonly quietSecondsMax: number;
  readonly warmupSeconds: number;
  readonly clockOffsetMsMax: number;
  /** One fault in this many overlaps with a second, compatible one; 0: never. */
  readonly overlapOneIn: number;
  /** Longest drain after the heal. */
  readonly drainSecondsMax: number;
  /** Longest wait for the cluster to be ready after the heal, before draining anyway. */
  readonly recoverySecondsMax: number;
  readonly requestTimeoutMs: number;
  readonly isCorruptForced: boolean;
  /**
   * A bug to start the first node with (`raftq serve --test-failpoint`), to show the harness
   * catches it: the run must come out invalid.
   */
  readonly failpoint: FailpointName | undefined;
  /** Base clock allowance of the visibility and FIFO checkers, before any clock fault. */
  readonly clockAllowanceMsBase: number;
  readonly isQuiet: boolean;
  /**
   * Operations each workload must have for its checkers before the clients stop: a run whose
   * machine was too busy to get there in `timeSeconds` keeps its clients running, faults healed,
   * for up to `timeSeconds` more. 0: stop on time.
   */
  readonly opsPerWorkloadMin: number;
}

export const defaultRunOptions: RunOptions = {
  timeSeconds: 60,
  nemesis: ['partition', 'kill', 'pause', 'clock'],
  workloads: ['queue', 'fifo'],
  seed: 0,
  nodes: 3,
  storeDir: 'jepsen-like/store',
  name: undefined,
  cliPath: 'dist/src/cli/main.js',
  visibilityTimeoutSeconds: 10,
  sendsPerSecond: 40,
  producers: 4,
  consumers: 3,
  fifoGroups: 6,
  metadataOpsPerSecond: 20,
  faultSecondsMin: 3,
  faultSecondsMax: 10,
  quietSecondsMin: 2,
  quietSecondsMax: 6,
  warmupSeconds: 3,
  // Under the cluster's clock-skew bound (src/base/limits.ts, 5 s) so transactions are not refused wholesale.
  clockOffsetMsMax: 3_000,
  overlapOneIn: 4,
  drainSecondsMax: 120,
  recoverySecondsMax: 60,
  requestTimeoutMs: 5_000,
  isCorruptForced: false,
  failpoint: undefined,
  clockAllowanceMsBase: 1_000,
  isQuiet: false,
  opsPerWorkloadMin: 0,
};

export class RunUsageError extends Error {
  override readonly name = 'RunUsageError';
}

export const runUsage = `usage: npm run jepsen -- [--time S] [--nemesis ${nemesisFamilies.join(',')}|all|none] [--workload ${workloadNames.join(',')}]
       [--seed N] [--nodes 3|5] [--store DIR] [--name NAME] [--visibility-timeout S] [--rate SENDS/S]
       [--fault-min S] [--fault-max S] [--quiet-min S] [--quiet-max S] [--overlap-one-in N] [--drain-max S]
       [--ops-min N] [--force-corrupt] [--failpoint ${failpointNames.join('|')}] [--quiet]`;

export function parseRunOptions(argv: readonly string[], randomSeed: () => number): RunOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      time: { type: 'string' },
      nemesis: { type: 'string' },
      workload: { type: 'string' },
      seed: { type: 'string' },
      nodes: { type: 'string' },
      store: { type: 'string' },
      name: { type: 'string' },
      cli: { type: 'string' },
      'visibility-timeout': { type: 'string' },
      rate: { type: 'string' },
      'fault-min': { type: 'string' },
      'fault-max': { type: 'string' },
      'quiet-min': { type: 'string' },
      'quiet-max': { type: 'string' },
      'drain-max': { type: 'string' },
      'ops-min': { type: 'string' },
      'overlap-one-in': { type: 'string' },
      failpoint: { type: 'string' },
      'force-corrupt': { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help === true) throw new RunUsageError(runUsage);
  const num = (name: string, value: string | undefined, fallback: number, min: number): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min) throw new RunUsageError(`--${name} must be a number ≥ ${min}, got "${value}"`);
    return n;
  };
  const list = <T extends string>(
    name: string,
    value: string | undefined,
    allowed: readonly T[],
    fallback: readonly T[],
  ): T[] => {
    if (value === undefined) return [...fallback];
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const item of items)
      if (!(allowed as readonly string[]).includes(item))
        throw new RunUsageError(`--${name}: unknown "${item}"; choose from ${allowed.join(', ')}`);
    if (items.length === 0) throw new RunUsageError(`--${name} needs at least one of ${allowed.join(', ')}`);
    return [...new Set(items)] as T[];
  };
  const d = defaultRunOptions;
  const nodes = num('nodes', values.nodes, d.nodes, 3);
  if (nodes !== 3 && nodes !== 5) throw new RunUsageError(`--nodes must be 3 or 5, got ${nodes}`);
  const options: RunOptions = {
    ...d,
    timeSeconds: num('time', values.time, d.timeSeconds, 1),
    nemesis:
      values.nemesis === 'all'
        ? [...nemesisFamilies]
        : values.nemesis === 'none'
          ? []
          : list('nemesis', values.nemesis, nemesisFamilies, d.nemesis),
    workloads: list('workload', values.workload, workloadNames, d.workloads),
    seed: values.seed === undefined ? randomSeed() : Math.trunc(num('seed', values.seed, 0, 0)),
    nodes,
    storeDir: values.store ?? d.storeDir,
    name: values.name,
    cliPath: values.cli ?? d.cliPath,
    visibilityTimeoutSeconds: num('visibility-timeout', values['visibility-timeout'], d.visibilityTimeoutSeconds, 1),
    sendsPerSecond: num('rate', values.rate, d.sendsPerSecond, 1),
    faultSecondsMin: num('fault-min', values['fault-min'], d.faultSecondsMin, 0.1),
    faultSecondsMax: num('fault-max', values['fault-max'], d.faultSecondsMax, 0.1),
    quietSecondsMin: num('quiet-min', values['quiet-min'], d.quietSecondsMin, 0),
    quietSecondsMax: num('quiet-max', values['quiet-max'], d.quietSecondsMax, 0),
    drainSecondsMax: num('drain-max', values['drain-max'], d.drainSecondsMax, 1),
    overlapOneIn: Math.trunc(num('overlap-one-in', values['overlap-one-in'], d.overlapOneIn, 0)),
    failpoint: failpointOf(values.failpoint),
    isCorruptForced: values['force-corrupt'] === true,
    isQuiet: values.quiet === true,
    opsPerWorkloadMin: Math.trunc(num('ops-min', values['ops-min'], d.opsPerWorkloadMin, 0)),
  };
  if (options.faultSecondsMin > options.faultSecondsMax)
    throw new RunUsageError('--fault-min must not exceed --fault-max');
  if (options.quietSecondsMin > options.quietSecondsMax)
    throw new RunUsageError('--quiet-min must not exceed --quiet-max');
  return options;
}

function failpointOf(value: string | undefined): FailpointName | undefined {
  if (value === undefined) return undefined;
  if (!isFailpointName(value))
    throw new RunUsageError(`--failpoint: unknown "${value}"; choose from ${failpointNames.join(', ')}`);
  return value;
}
