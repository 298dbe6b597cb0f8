// A percentile of a sorted sample by rank (no interpolation): the smallest value with at least
// `fraction` of the sample at or below it. NaN for an empty sample: a percentile of nothing is no number.

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}
