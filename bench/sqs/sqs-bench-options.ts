// Command-line options of `npm run bench:sqs`.
import { benchFlags, BenchUsageError, parsePositiveIntegers, parseWorkloadNames } from '../bench-flags.js';
import type { PhaseTiming } from '../bench-options.js';
import { sqsWorkloadNames, type SqsWorkloadName } from './sqs-workloads.js';

export interface SqsBenchOptions {
  readonly isQuick: boolean;
  /** Cluster sizes to run, in order (1: one node; 3: three nodes, clients spread over all of them). */
  readonly nodeCounts: readonly number[];
  readonly workloads: readonly SqsWorkloadName[];
  readonly concurrencies: readonly number[];
  readonly messageBytes: number;
  readonly clientProcesses: number;
  readonly timing: PhaseTiming;
  readonly resultsDir: string;
  /** Rewrite the generated block of the "SQS" section in docs/BENCHMARKS.md. */
  readonly isWritingDocs: boolean;
}

/**
 * `--quick`: two concurrencies, short windows; about two minutes on an idle machine. The prefill
 * of a receive cell is small so that filling does not dominate the run.
 */
export const sqsQuickTiming: PhaseTiming = {
  systemWarmupMs: 10_000,
  warmupMs: 500,
  windowMs: 3_000,
  prefillMessagesMax: 3_000,
  prefillBytesMax: 32 * 1_048_576,
  prefillMsMax: 20_000,
  // Receive cells measure a small prefill on purpose; a drained one is not measured again.
  refillBytesMax: 0,
  refillMsMax: 0,
};

export const sqsFullTiming: PhaseTiming = {
  systemWarmupMs: 20_000,
  warmupMs: 1_000,
  windowMs: 8_000,
  prefillMessagesMax: 12_000,
  prefillBytesMax: 128 * 1_048_576,
  prefillMsMax: 60_000,
  refillBytesMax: 0,
  refillMsMax: 0,
};

export const sqsQuickConcurrencies = [1, 32] as const;
export const sqsFullConcurrencies = [1, 8, 32, 64] as const;

const clusterSizes = [1, 3];

export const sqsBenchUsage = `usage: npm run bench:sqs -- [--quick] [--nodes 1,3] [--workloads ${sqsWorkloadNames.join(',')}]
       [--concurrency N,...] [--size BYTES] [--client-processes N] [--results-dir DIR] [--write-docs]`;

export function parseSqsBenchOptions(argv: readonly string[], defaultResultsDir: string): SqsBenchOptions {
  let isQuick = false;
  let isWritingDocs = false;
  let nodeCounts: number[] = [...clusterSizes];
  let workloads: SqsWorkloadName[] = [...sqsWorkloadNames];
  let concurrencies: number[] | null = null;
  let messageBytes = 1024;
  let clientProcesses = 2;
  let resultsDir = defaultResultsDir;
  for (const { arg, flag, value } of benchFlags(argv)) {
    switch (flag) {
      case '--quick':
        isQuick = true;
        break;
      case '--write-docs':
        isWritingDocs = true;
        break;
      case '--nodes': {
        nodeCounts = parsePositiveIntegers(value(), flag);
        const unknown = nodeCounts.filter((n) => !clusterSizes.includes(n));
        if (unknown.length > 0)
          throw new BenchUsageError(
            `--nodes: the bench runs clusters of ${clusterSizes.join(' or ')} nodes, not ${unknown.join(', ')}`,
          );
        break;
      }
      case '--workloads':
        workloads = parseWorkloadNames(value(), sqsWorkloadNames);
        break;
      case '--concurrency':
        concurrencies = parsePositiveIntegers(value(), flag);
        break;
      case '--size':
        [messageBytes = 1024] = parsePositiveIntegers(value(), flag);
        break;
      case '--client-processes':
        [clientProcesses = 2] = parsePositiveIntegers(value(), flag);
        break;
      case '--results-dir':
        resultsDir = value();
        break;
      case '--help':
      case '-h':
        throw new BenchUsageError(sqsBenchUsage);
      default:
        throw new BenchUsageError(`unknown option ${arg}\n${sqsBenchUsage}`);
    }
  }
  return {
    isQuick,
    nodeCounts,
    workloads,
    concurrencies: concurrencies ?? [...(isQuick ? sqsQuickConcurrencies : sqsFullConcurrencies)],
    messageBytes,
    clientProcesses,
    timing: isQuick ? sqsQuickTiming : sqsFullTiming,
    resultsDir,
    isWritingDocs,
  };
}
