// `node dist/bench/profile/op-timeline.js TRACE.ops.tsv [--bin-ms 250] [--slow-ms MS]
//    [--leveldb-log FILE]... [--node-events FILE]... [--svg OUT.svg]`
// Reads an operation trace that `npm run bench -- --op-trace DIR` wrote (op-trace.ts) and prints
// its latency bin by bin: operations, messages a second, median, p99, slowest, slow operations
// (slower than --slow-ms, by default twice the window's median), and the LevelDB flushes and
// compactions that ran in each bin, from the LOG files the same run kept beside the trace, and the
// pauses of 10 ms or more of a node's main thread (collections, stalls: node-events.ts) that began
// in it. The summary says how many of the window's slow operations fell in bins with LevelDB work
// running, and with a pause. --svg draws the same as latency over time.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { parseOpTrace } from '../load/op-trace.js';
import { formatTextTable } from '../report/text-table.js';
import { renderTimelineChart, type TimelineLane } from '../report/svg-timeline-chart.js';
import { parseLevelDbLog, type LevelDbEvent } from './leveldb-log-events.js';
import { parseNodeEvents, type NodeEvent, type NodeEventKind } from './node-events.js';
import { binOps, nodePauseMinMs, summarizeTimeline } from './op-timeline-bins.js';
import { percentile } from '../stats/percentile.js';

const usage =
  'usage: op-timeline TRACE.ops.tsv [--bin-ms 250] [--slow-ms MS] [--leveldb-log FILE]... [--node-events FILE]... [--svg OUT.svg]\n';

const levelDbColors = { flush: '#9467bd', compaction: '#8c564b', 'manual-compaction': '#17becf' } as const;
const nodeEventColors: Readonly<Record<NodeEventKind, string>> = {
  stall: '#d62728',
  'gc-major': '#1f77b4',
  'gc-minor': '#7f7f7f',
  'gc-incremental': '#7f7f7f',
  'gc-weakcb': '#7f7f7f',
};

function levelDbLane(database: string, events: readonly LevelDbEvent[]): TimelineLane {
  return {
    name: database,
    bands: events.map((event) => ({
      startEpochMs: event.startEpochMs,
      endEpochMs: event.endEpochMs,
      color: levelDbColors[event.kind],
      title: `${event.kind} ${event.detail}`,
    })),
  };
}

function nodeLane(node: string, events: readonly NodeEvent[]): TimelineLane {
  return {
    name: `${node} pauses`,
    bands: events
      .filter((event) => event.durationMs >= nodePauseMinMs)
      .map((event) => ({
        startEpochMs: event.startEpochMs,
        endEpochMs: event.startEpochMs + event.durationMs,
        color: nodeEventColors[event.kind],
        title: `${event.kind} ${event.durationMs.toFixed(1)} ms`,
      })),
  };
}

/** "12345.events.tsv" → "pid 12345". */
function nodeName(path: string): string {
  return `pid ${basename(path).replace(/\.events\.tsv$/, '')}`;
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n > 0)) throw new TypeError(`${flag}: a positive number of milliseconds, got ${value}`);
  return n;
}

/** "raftq-1.n1.state.leveldb.log" → "n1.state": the database the LOG belongs to. */
function databaseName(path: string): string {
  const parts = basename(path)
    .replace(/\.leveldb\.log$/, '')
    .split('.');
  return parts.length > 1 ? parts.slice(1).join('.') : (parts[0] ?? path);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'bin-ms': { type: 'string' },
      'slow-ms': { type: 'string' },
      'leveldb-log': { type: 'string', multiple: true },
      'node-events': { type: 'string', multiple: true },
      svg: { type: 'string' },
    },
  });
  const tracePath = positionals[0];
  if (tracePath === undefined || positionals.length > 1) {
    process.stderr.write(usage);
    process.exitCode = 2;
    return;
  }
  const trace = parseOpTrace(readFileSync(tracePath, 'utf8'));
  const windowMs = trace.windowEndEpochMs - trace.windowStartEpochMs;
  const inWindow = trace.ops
    .filter((op) => op.startEpochMs >= trace.windowStartEpochMs && op.startEpochMs < trace.windowEndEpochMs)
    .map((op) => op.durationMs)
    .sort((a, b) => a - b);
  const binMs = positive(values['bin-ms'], '--bin-ms') ?? 250;
  const slowMs = positive(values['slow-ms'], '--slow-ms') ?? 2 * percentile(inWindow, 0.5);
  const levelDb = (values['leveldb-log'] ?? []).map((path) => ({
    database: databaseName(path),
    events: parseLevelDbLog(readFileSync(path, 'utf8')),
  }));
  const nodeEvents = (values['node-events'] ?? []).map((path) => ({
    node: nodeName(path),
    events: parseNodeEvents(readFileSync(path, 'utf8')),
  }));
  const bins = binOps(trace, { binMs, slowMs, levelDb, nodeEvents });
  const rows = bins.map((bin) => [
    (bin.fromMs / 1000).toFixed(2),
    String(bin.ops),
    String(Math.round((bin.messages * 1000) / binMs)),
    bin.p50Ms.toFixed(1),
    bin.p99Ms.toFixed(1),
    bin.maxMs.toFixed(1),
    String(bin.slowOps),
    bin.events
      .map(({ database, event }) => `${database} ${event.kind} ${Math.round(event.endEpochMs - event.startEpochMs)} ms`)
      .join('; '),
    bin.pauses.map(({ node, event }) => `${node} ${event.kind} ${Math.round(event.durationMs)} ms`).join('; '),
  ]);
  process.stdout.write(
    `${formatTextTable({
      header: [
        'from s',
        'ops',
        'msgs/s',
        'p50 ms',
        'p99 ms',
        'max ms',
        `> ${slowMs.toFixed(0)} ms`,
        'LevelDB',
        'pauses',
      ],
      rows,
      numericColumns: new Set([0, 1, 2, 3, 4, 5, 6]),
    })}\n`,
  );
  const summary = summarizeTimeline(trace, bins);
  process.stdout.write(
    `\nwindow ${(windowMs / 1000).toFixed(2)} s: ${summary.opsInWindow} ops, median ${percentile(inWindow, 0.5).toFixed(1)} ms, ` +
      `p99 ${percentile(inWindow, 0.99).toFixed(1)} ms; ${summary.slowOpsInWindow} slower than ${slowMs.toFixed(0)} ms` +
      (levelDb.length === 0
        ? ''
        : `; ${summary.slowOpsBesideLevelDb} of them in the ${summary.binsBesideLevelDb} of ${summary.binsInWindow} bins where LevelDB flushed or compacted`) +
      (nodeEvents.length === 0
        ? ''
        : `; ${summary.slowOpsBesidePauses} in the ${summary.binsWithPauses} of ${summary.binsInWindow} bins where a main thread paused ${nodePauseMinMs} ms or more`) +
      '\n',
  );
  if (values.svg !== undefined) {
    writeFileSync(
      values.svg,
      renderTimelineChart({
        title: `${basename(tracePath).replace(/\.ops\.tsv$/, '')}: latency per ${binMs} ms`,
        binMs,
        windowMs,
        windowStartEpochMs: trace.windowStartEpochMs,
        bins,
        lanes: [
          ...levelDb.map(({ database, events }) => levelDbLane(database, events)),
          ...nodeEvents.map(({ node, events }) => nodeLane(node, events)),
        ],
      }),
    );
    process.stdout.write(`wrote ${values.svg}\n`);
  }
}

try {
  main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exitCode = 2;
}
