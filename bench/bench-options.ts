// Command-line options of `npm run bench`.
import { fullMatrix, quickMatrix, workloadKinds, type MatrixShape, type WorkloadKind } from './cell-spec.js';
import { systemCatalog } from './systems/system-catalog.js';
import { benchFlags, BenchUsageError, parsePositiveIntegers, parseWorkloadNames } from './bench-flags.js';

export interface PhaseTiming {
  /** Traffic a system gets after it starts and before its first cell (system-warm-up.ts); 0 for none. */
  readonly systemWarmupMs: number;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Messages a consume cell drains, at most; fewer for large messages (see prefillBytesMax). */
  readonly prefillMessagesMax: number;
  readonly prefillBytesMax: number;
  /** Longest a prefill may take: a slow system consumes what it managed to store. */
  readonly prefillMsMax: number;
  /**
   * A consume cell whose prefill ran out before its window ended (a fast system drained it within
   * the warm-up and a fraction of the window) is measured again after a larger prefill, sized by
   * the rate it showed, of at most this many bytes (measure-cell.ts refillCount).
   */
  readonly refillBytesMax: number;
  /** Longest such a larger prefill may take (a fast consumer is not always a fast producer). */
  readonly refillMsMax: number;
}

export interface BenchOptions {
  readonly isQuick: boolean;
  readonly systems: readonly string[];
  readonly matrix: MatrixShape;
  readonly timing: PhaseTiming;
  readonly clientProcesses: number;
  /** Send every client to this node of each system (1-based), not spread over them all. */
  readonly onlyNode: number | null;
  readonly resultsDir: string;
  /** Rewrite the generated table in docs/BENCHMARKS.md from this run. */
  readonly isWritingDocs: boolean;
  /** Write every operation's start and duration, and each system's LevelDB logs, here (op-trace.ts). */
  readonly opTraceDir: string | null;
}

export const quickTiming: PhaseTiming = {
  systemWarmupMs: 10_000,
  // A cell's load workers are new processes: for their first ~0.75 s their own cold code adds 40-140
  // ms to every operation even against a server that does nothing (noop-http, docs/BENCHMARKS.md).
  warmupMs: 1_000,
  windowMs: 3_000,
  // The warm-up consumes too: ~10,000 messages at 10,000 msgs/s, and the window needs the rest.
  prefillMessagesMax: 24_000,
  prefillBytesMax: 32 * 1_048_576,
  prefillMsMax: 8_000,
  refillBytesMax: 128 * 1_048_576,
  refillMsMax: 20_000,
};

export const fullTiming: PhaseTiming = {
  systemWarmupMs: 20_000,
  warmupMs: 2_000,
  windowMs: 10_000,
  prefillMessagesMax: 50_000,
  prefillBytesMax: 256 * 1_048_576,
  prefillMsMax: 90_000,
  refillBytesMax: 512 * 1_048_576,
  refillMsMax: 180_000,
};

export { BenchUsageError };

export const benchUsage = `usage: npm run bench -- [--quick] [--systems a,b,...] [--workloads w,...] [--sizes BYTES,...]
       [--batch-sizes 1,10] [--concurrency N,...] [--client-processes N] [--system-warmup-ms MS] [--only-node N]
       [--results-dir DIR] [--write-docs] [--op-trace DIR]
systems: ${systemCatalog.map((s) => s.id).join(', ')}`;

export function parseBenchOptions(argv: readonly string[], defaultResultsDir: string): BenchOptions {
  let isQuick = false;
  let isWritingDocs = false;
  let systems = systemCatalog.map((s) => s.id);
  let clientProcesses = 2;
  let resultsDir = defaultResultsDir;
  let concurrencies: number[] | null = null;
  let sizes: number[] | null = null;
  let batchSizes: number[] | null = null;
  let workloads: WorkloadKind[] | null = null;
  let systemWarmupMs: number | null = null;
  let onlyNode: number | null = null;
  let opTraceDir: string | null = null;
  for (const { arg, flag, value } of benchFlags(argv)) {
    switch (flag) {
      case '--quick':
        isQuick = true;
        break;
      case '--write-docs':
        isWritingDocs = true;
        break;
      case '--systems': {
        systems = value()
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        const unknown = systems.filter((s) => !systemCatalog.some((d) => d.id === s));
        if (unknown.length > 0) throw new BenchUsageError(`unknown system(s): ${unknown.join(', ')}`);
        if (systems.length === 0) throw new BenchUsageError('--systems: name at least one system');
        break;
      }
      case '--client-processes':
        [clientProcesses = 2] = parsePositiveIntegers(value(), flag);
        break;
      case '--concurrency':
        concurrencies = parsePositiveIntegers(value(), flag);
        break;
      case '--sizes':
        sizes = parsePositiveIntegers(value(), flag);
        break;
      case '--batch-sizes':
        batchSizes = parsePositiveIntegers(value(), flag);
        break;
      case '--workloads':
        workloads = parseWorkloadNames(value(), workloadKinds);
        break;
      case '--results-dir':
        resultsDir = value();
        break;
      case '--op-trace':
        opTraceDir = value();
        break;
      case '--only-node':
        [onlyNode = null] = parsePositiveIntegers(value(), flag);
        break;
      case '--system-warmup-ms': {
        const ms = Number(value());
        if (!Number.isInteger(ms) || ms < 0)
          throw new BenchUsageError(`${flag}: a whole number of milliseconds, 0 or more`);
        systemWarmupMs = ms;
        break;
      }
      case '--help':
      case '-h':
        throw new BenchUsageError(benchUsage);
      default:
        throw new BenchUsageError(`unknown option ${arg}\n${benchUsage}`);
    }
  }
  const base = isQuick ? quickMatrix : fullMatrix;
  const matrix: MatrixShape = {
    ...base,
    ...(concurrencies === null ? {} : { concurrencies }),
    ...(sizes === null ? {} : { messageBytes: sizes }),
    // Naming the batch sizes asks for exactly those, in every workload.
    ...(batchSizes === null ? {} : { batchSizes, isIncluded: () => true }),
    ...(workloads === null ? {} : { workloads }),
  };
  return {
    isQuick,
    systems,
    matrix,
    timing: { ...(isQuick ? quickTiming : fullTiming), ...(systemWarmupMs === null ? {} : { systemWarmupMs }) },
    clientProcesses,
    onlyNode,
    resultsDir,
    isWritingDocs,
    opTraceDir,
  };
}
