import type { OperationPair } from '../history/operation-pairs.js';

export interface OperationCounts {
  readonly [f: string]: { ok: number; fail: number; info: number };
}

export function countOperations(pairs: readonly OperationPair[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const pair of pairs) {
    const row = (counts[pair.f] ??= { ok: 0, fail: 0, info: 0 });
    row[pair.outcome] = (row[pair.outcome] ?? 0) + 1;
  }
  return counts;
}

/** Completions per second, per outcome, in buckets of `bucketMs`. x is seconds from the start. */
export function throughputSeries(
  pairs: readonly OperationPair[],
  bucketMs: number,
  endMs: number,
): Record<'ok' | 'fail' | 'info', Array<[number, number]>> {
  const buckets = Math.max(1, Math.ceil(endMs / bucketMs));
  const zero = (): number[] => new Array<number>(buckets).fill(0);
  const counts = { ok: zero(), fail: zero(), info: zero() };
  for (const pair of pairs) {
    const atMs = Number.isFinite(pair.completeMs) ? pair.completeMs : undefined;
    if (atMs === undefined) continue;
    const bucket = Math.min(buckets - 1, Math.floor(atMs / bucketMs));
    counts[pair.outcome][bucket] = (counts[pair.outcome][bucket] ?? 0) + 1;
  }
  const toSeries = (values: number[]): Array<[number, number]> =>
    values.map((n, i) => [((i + 0.5) * bucketMs) / 1000, (n * 1000) / bucketMs]);
  return { ok: toSeries(counts.ok), fail: toSeries(counts.fail), info: toSeries(counts.info) };
}

/** One point per completed operation: (completion second, latency ms), by outcome. */
export function latencyPoints(
  pairs: readonly OperationPair[],
  f: string,
): Record<'ok' | 'fail' | 'info', Array<[number, number]>> {
  const points = {
    ok: [] as Array<[number, number]>,
    fail: [] as Array<[number, number]>,
    info: [] as Array<[number, number]>,
  };
  for (const pair of pairs) {
    if (pair.f !== f || !Number.isFinite(pair.completeMs)) continue;
    points[pair.outcome].push([pair.invokeMs / 1000, Math.max(0.01, pair.completeMs - pair.invokeMs)]);
  }
  return points;
}
