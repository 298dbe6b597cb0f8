// The options of `npm run bench:fixed-rate` (bench/fixed-rate.ts), parsed apart so they can be tested.
import { BenchUsageError, benchFlags } from './bench-flags.js';

export type FixedRateWorkload = 'produce' | 'produce-consume';

export interface FixedRateOptions {
  readonly nodes: number;
  readonly workload: FixedRateWorkload;
  readonly ratePerSecond: number;
  readonly batchSize: number;
  readonly bodyBytes: number;
  readonly warmupSeconds: number;
  readonly windowSeconds: number;
  readonly windows: number;
  /** Most requests of each kind outstanding; a rate the system cannot keep up with shows as "behind". */
  readonly inFlightMax: number;
  /** Every client to this node (1-based), the leader when 0; null: spread over all nodes. */
  readonly onlyNode: number | null;
}

export const fixedRateUsage =
  'usage: node dist/bench/fixed-rate.js [--nodes 1|3] [--workload produce|produce-consume] [--rate MSGS_PER_S] ' +
  '[--batch N] [--body-bytes N] [--warmup-seconds S] [--window-seconds S] [--windows N] [--in-flight N] [--only-node N|leader]';

export function parseFixedRateOptions(argv: readonly string[]): FixedRateOptions {
  const options = {
    nodes: 3,
    workload: 'produce' as FixedRateWorkload,
    ratePerSecond: 600,
    batchSize: 1,
    bodyBytes: 1024,
    warmupSeconds: 15,
    windowSeconds: 10,
    windows: 3,
    inFlightMax: 256,
    onlyNode: null as number | null,
  };
  const positive = (value: string, flag: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new BenchUsageError(`${flag}: expected a positive integer, got ${value}`);
    return n;
  };
  for (const f of benchFlags(argv)) {
    switch (f.flag) {
      case '--nodes':
        options.nodes = positive(f.value(), f.flag);
        break;
      case '--workload': {
        const w = f.value();
        if (w !== 'produce' && w !== 'produce-consume') throw new BenchUsageError(`unknown workload ${w}`);
        options.workload = w;
        break;
      }
      case '--rate':
        options.ratePerSecond = positive(f.value(), f.flag);
        break;
      case '--batch':
        options.batchSize = positive(f.value(), f.flag);
        break;
      case '--body-bytes':
        options.bodyBytes = positive(f.value(), f.flag);
        break;
      case '--warmup-seconds':
        options.warmupSeconds = positive(f.value(), f.flag);
        break;
      case '--window-seconds':
        options.windowSeconds = positive(f.value(), f.flag);
        break;
      case '--windows':
        options.windows = positive(f.value(), f.flag);
        break;
      case '--in-flight':
        options.inFlightMax = positive(f.value(), f.flag);
        break;
      case '--only-node': {
        const value = f.value();
        options.onlyNode = value === 'leader' ? 0 : positive(value, f.flag);
        break;
      }
      default:
        throw new BenchUsageError(`unknown option ${f.arg}`);
    }
  }
  if (options.batchSize > 10) throw new BenchUsageError('--batch: at most 10 (SQS batches)');
  return options;
}
