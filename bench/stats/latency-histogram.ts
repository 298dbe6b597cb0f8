// HDR histograms of operation latency, recorded in microseconds. Worker processes record into
// their own histograms and ship them to the coordinator encoded; the coordinator merges them and
// summarises the merged one, so percentiles are over every operation, not averages of averages.
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

/** Slowest latency a histogram tracks: one minute. Longer operations are clamped to it. */
export const latencyMicrosMax = 60_000_000;

export type LatencyHistogram = Histogram;

export function newLatencyHistogram(): LatencyHistogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: latencyMicrosMax,
    numberOfSignificantValueDigits: 3,
  });
}

export function recordLatencyMicros(histogram: LatencyHistogram, micros: number): void {
  histogram.recordValue(Math.min(Math.max(1, Math.round(micros)), latencyMicrosMax));
}

export function encodeLatencyHistogram(histogram: LatencyHistogram): string {
  return encodeIntoCompressedBase64(histogram);
}

export function decodeLatencyHistogram(encoded: string): LatencyHistogram {
  return decodeFromCompressedBase64(encoded);
}

/** One histogram holding every value of `encoded` (an empty histogram when there are none). */
export function mergeEncodedHistograms(encoded: readonly string[]): LatencyHistogram {
  const merged = newLatencyHistogram();
  for (const one of encoded) merged.add(decodeLatencyHistogram(one));
  return merged;
}
