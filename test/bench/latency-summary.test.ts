import { describe, expect, it } from 'vitest';
import {
  encodeLatencyHistogram,
  latencyMicrosMax,
  mergeEncodedHistograms,
  newLatencyHistogram,
  recordLatencyMicros,
} from '../../bench/stats/latency-histogram.js';
import { summarizeLatency } from '../../bench/stats/latency-summary.js';

describe('latency summaries', () => {
  it('an empty histogram has no summary, because a percentile of nothing is no number', () => {
    expect(summarizeLatency(newLatencyHistogram())).toBeNull();
  });

  it('reports p50, p99 and p99.9 in milliseconds within the histogram precision', () => {
    const histogram = newLatencyHistogram();
    // 1..10000 µs, once each: p50 is 5 ms, p99 9.9 ms, p99.9 9.99 ms.
    for (let micros = 1; micros <= 10_000; micros++) recordLatencyMicros(histogram, micros);
    const summary = summarizeLatency(histogram);
    expect(summary?.count).toBe(10_000);
    expect(summary?.p50Ms).toBeCloseTo(5, 1);
    expect(summary?.p99Ms).toBeCloseTo(9.9, 1);
    expect(summary?.p999Ms).toBeCloseTo(9.99, 1);
    expect(summary?.maxMs).toBeCloseTo(10, 1);
    expect(summary?.meanMs).toBeCloseTo(5, 1);
  });

  it('a slow tail moves p99.9 but not p50', () => {
    const histogram = newLatencyHistogram();
    for (let i = 0; i < 9_980; i++) recordLatencyMicros(histogram, 1_000);
    for (let i = 0; i < 20; i++) recordLatencyMicros(histogram, 500_000);
    const summary = summarizeLatency(histogram);
    expect(summary?.p50Ms).toBeCloseTo(1, 1);
    expect(summary?.p99Ms).toBeCloseTo(1, 1);
    expect(summary?.p999Ms).toBeGreaterThan(400);
  });

  it('merging encoded histograms of several workers gives the percentiles of all their operations', () => {
    const fast = newLatencyHistogram();
    const slow = newLatencyHistogram();
    for (let i = 0; i < 900; i++) recordLatencyMicros(fast, 2_000);
    for (let i = 0; i < 100; i++) recordLatencyMicros(slow, 80_000);
    const merged = mergeEncodedHistograms([encodeLatencyHistogram(fast), encodeLatencyHistogram(slow)]);
    const summary = summarizeLatency(merged);
    expect(summary?.count).toBe(1_000);
    expect(summary?.p50Ms).toBeCloseTo(2, 1);
    expect(summary?.p99Ms).toBeGreaterThan(79);
  });

  it('clamps values outside the tracked range instead of throwing', () => {
    const histogram = newLatencyHistogram();
    recordLatencyMicros(histogram, 0);
    recordLatencyMicros(histogram, latencyMicrosMax * 10);
    expect(histogram.totalCount).toBe(2);
    expect(summarizeLatency(histogram)?.maxMs).toBeLessThanOrEqual((latencyMicrosMax / 1000) * 1.001);
  });
});
