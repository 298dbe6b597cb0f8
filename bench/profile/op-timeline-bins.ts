// An operation trace (op-trace.ts) cut into bins of time: how many operations started in each,
// how long they took (median, 99th percentile, slowest) and how many were slow, with the LevelDB
// events (leveldb-log-events.ts) that ran during each bin. Slow operations that come together in
// a few bins point at something that stalled the server; slow ones spread evenly do not.
import type { TracedOp, OpTrace } from '../load/op-trace.js';
import type { LevelDbEvent } from './leveldb-log-events.js';
import type { NodeEvent } from './node-events.js';
import { percentile } from '../stats/percentile.js';

/** A collection or stall at least this long is a pause of the main thread worth naming beside a bin. */
export const nodePauseMinMs = 10;

export interface OpBin {
  /** Start of the bin, in ms from the measured window's start (negative: warm-up). */
  readonly fromMs: number;
  readonly ops: number;
  readonly messages: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly slowOps: number;
  /** LevelDB events that overlap the bin, labelled with the database they ran in. */
  readonly events: readonly { readonly database: string; readonly event: LevelDbEvent }[];
  /** Pauses of a node's main thread (node-events.ts, nodePauseMinMs or longer) that began in the bin. */
  readonly pauses: readonly { readonly node: string; readonly event: NodeEvent }[];
}

export interface TimelineSummary {
  readonly opsInWindow: number;
  readonly slowOpsInWindow: number;
  /** Slow operations in the window whose bin overlapped a LevelDB flush or compaction. */
  readonly slowOpsBesideLevelDb: number;
  /** Bins of the window that overlapped a LevelDB flush or compaction. */
  readonly binsBesideLevelDb: number;
  /** Slow operations in the window whose bin had a pause of a node's main thread. */
  readonly slowOpsBesidePauses: number;
  readonly binsWithPauses: number;
  readonly binsInWindow: number;
}

export function binOps(
  trace: OpTrace,
  options: {
    readonly binMs: number;
    readonly slowMs: number;
    readonly levelDb?: readonly { readonly database: string; readonly events: readonly LevelDbEvent[] }[];
    readonly nodeEvents?: readonly { readonly node: string; readonly events: readonly NodeEvent[] }[];
  },
): OpBin[] {
  const { binMs, slowMs } = options;
  const origin = trace.windowStartEpochMs;
  const byBin = new Map<number, TracedOp[]>();
  for (const op of trace.ops) {
    const bin = Math.floor((op.startEpochMs - origin) / binMs);
    const ops = byBin.get(bin);
    if (ops === undefined) byBin.set(bin, [op]);
    else ops.push(op);
  }
  const bins = [...byBin.keys()].sort((a, b) => a - b);
  return bins.map((bin) => {
    const ops = byBin.get(bin) as TracedOp[];
    const durations = ops.map((op) => op.durationMs).sort((a, b) => a - b);
    const fromEpochMs = origin + bin * binMs;
    const toEpochMs = fromEpochMs + binMs;
    const events = (options.levelDb ?? []).flatMap(({ database, events: all }) =>
      all
        .filter((event) => event.startEpochMs < toEpochMs && event.endEpochMs >= fromEpochMs)
        .map((event) => ({ database, event })),
    );
    const pauses = (options.nodeEvents ?? []).flatMap(({ node, events: all }) =>
      all
        .filter(
          (event) =>
            event.durationMs >= nodePauseMinMs && event.startEpochMs >= fromEpochMs && event.startEpochMs < toEpochMs,
        )
        .map((event) => ({ node, event })),
    );
    return {
      fromMs: bin * binMs,
      ops: ops.length,
      messages: ops.reduce((sum, op) => sum + op.messages, 0),
      p50Ms: percentile(durations, 0.5),
      p99Ms: percentile(durations, 0.99),
      maxMs: durations[durations.length - 1] ?? 0,
      slowOps: durations.filter((ms) => ms > slowMs).length,
      events,
      pauses,
    };
  });
}

/** Bins that start inside the measured window; what their slow operations had beside them. */
export function summarizeTimeline(trace: OpTrace, bins: readonly OpBin[]): TimelineSummary {
  const windowMs = trace.windowEndEpochMs - trace.windowStartEpochMs;
  const inWindow = bins.filter((bin) => bin.fromMs >= 0 && bin.fromMs < windowMs);
  const besideLevelDb = inWindow.filter((bin) => bin.events.some(({ event }) => event.kind !== 'manual-compaction'));
  const withPauses = inWindow.filter((bin) => bin.pauses.length > 0);
  return {
    opsInWindow: inWindow.reduce((sum, bin) => sum + bin.ops, 0),
    slowOpsInWindow: inWindow.reduce((sum, bin) => sum + bin.slowOps, 0),
    slowOpsBesideLevelDb: besideLevelDb.reduce((sum, bin) => sum + bin.slowOps, 0),
    binsBesideLevelDb: besideLevelDb.length,
    slowOpsBesidePauses: withPauses.reduce((sum, bin) => sum + bin.slowOps, 0),
    binsWithPauses: withPauses.length,
    binsInWindow: inWindow.length,
  };
}
