// `node dist/bench/profile/op-timeline.js TRACE.ops.tsv [--bin-ms 250] [--slow-ms MS]
//    [--leveldb-log FILE]... [--svg OUT.svg]`
// Reads an operation trace that `npm run bench -- --op-trace DIR` wrote (op-trace.ts) and prints
// its latency bin by bin: operations, messages a second, median, p99, slowest, slow operations
// (slower than --slow-ms, by default twice the window's median), and the LevelDB flushes and
// compactions that ran in each bin, from the LOG files the same run kept beside the trace. The
// summary says how many of the window's slow operations fell in bins with LevelDB work running.
// --svg draws the same as latency over time.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { parseOpTrace } from '../load/op-trace.js';
import { renderTimelineChart } from '../report/svg-timeline-chart.js';
import { formatTextTable } from '../report/text-table.js';
import { parseLevelDbLog } from './leveldb-log-events.js';
import { binOps, quantileOfSorted, summarizeTimeline } from './op-timeline-bins.js';

const usage =
  'usage: op-timeline TRACE.ops.tsv [--bin-ms 250] [--slow-ms MS] [--leveldb-log FILE]... [--svg OUT.svg]\n';

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
  const slowMs = positive(values['slow-ms'], '--slow-ms') ?? 2 * quantileOfSorted(inWindow, 0.5);
  const levelDb = (values['leveldb-log'] ?? []).map((path) => ({
    database: databaseName(path),
    events: parseLevelDbLog(readFileSync(path, 'utf8')),
  }));
  const bins = binOps(trace, { binMs, slowMs, levelDb });
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
  ]);
  process.stdout.write(
    `${formatTextTable({
      header: ['from s', 'ops', 'msgs/s', 'p50 ms', 'p99 ms', 'max ms', `> ${slowMs.toFixed(0)} ms`, 'LevelDB'],
      rows,
      numericColumns: new Set([0, 1, 2, 3, 4, 5, 6]),
    })}\n`,
  );
  const summary = summarizeTimeline(trace, bins);
  process.stdout.write(
    `\nwindow ${(windowMs / 1000).toFixed(2)} s: ${summary.opsInWindow} ops, median ${quantileOfSorted(inWindow, 0.5).toFixed(1)} ms, ` +
      `p99 ${quantileOfSorted(inWindow, 0.99).toFixed(1)} ms; ${summary.slowOpsInWindow} slower than ${slowMs.toFixed(0)} ms` +
      (levelDb.length === 0
        ? '\n'
        : `, ${summary.slowOpsBesideLevelDb} of them in the ${summary.binsBesideLevelDb} of ${summary.binsInWindow} bins where LevelDB flushed or compacted\n`),
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
        databases: levelDb.map((db) => db.database),
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
