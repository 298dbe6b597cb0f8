// What a results table says about a latency histogram: its count and the percentiles a reader
// compares (p50, p99, p99.9), in milliseconds.
import type { LatencyHistogram } from './latency-histogram.js';

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Milliseconds with microsecond resolution: what the histogram recorded, without float noise. */
function microsToMs(micros: number): number {
  return Math.round(micros) / 1000;
}

/** The summary of `histogram`, or null when it recorded nothing (a percentile of nothing is no number). */
export function summarizeLatency(histogram: LatencyHistogram): LatencySummary | null {
  if (histogram.totalCount === 0) return null;
  return {
    count: histogram.totalCount,
    p50Ms: microsToMs(histogram.getValueAtPercentile(50)),
    p99Ms: microsToMs(histogram.getValueAtPercentile(99)),
    p999Ms: microsToMs(histogram.getValueAtPercentile(99.9)),
    maxMs: microsToMs(histogram.maxValue),
    meanMs: microsToMs(histogram.mean),
  };
}
