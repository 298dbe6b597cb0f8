// What `npm run bench:sqs` shows: a table of every cell (throughput, requests per second, p50/p99
// latency, server CPU per 1000 messages and the client's CPU beside it), line charts of
// throughput and p99 latency against concurrency, and the generated block of the "SQS" section of
// docs/BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderPlot, type PlotSeries } from '../../jepsen-like/report/svg-plot.js';
import type { BenchResult, CellMeasurement } from '../report/bench-result.js';
import { replaceGeneratedBlock } from '../report/generated-block.js';
import { headlineLatency } from '../report/results-table.js';
import { formatMarkdownTable, formatTextTable, type Table } from '../report/text-table.js';
import { formatBytes } from '../cell-spec.js';
import { workloadOfCell } from './sqs-workloads.js';

export const sqsGeneratedStart = '<!-- sqs:generated:start -->';
export const sqsGeneratedEnd = '<!-- sqs:generated:end -->';

const nodesOf = (system: string): string => system.replace(/^raftq-/, '');

/** Measured operations (requests, or receive-and-delete rounds) per second. */
export function operationsPerSecond(cell: CellMeasurement): number | null {
  const latency = headlineLatency(cell);
  return latency === null || cell.windowSeconds <= 0 ? null : latency.count / cell.windowSeconds;
}

export function requestsPerSecond(cell: CellMeasurement): number | null {
  const operations = operationsPerSecond(cell);
  const workload = workloadOfCell(cell.cell);
  return operations === null || workload === undefined ? null : operations * workload.requestsPerOperation;
}

function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined ? '—' : value.toFixed(digits);
}

function sqsTable(cells: readonly CellMeasurement[]): Table {
  const rows = cells.map((cell) => {
    const workload = workloadOfCell(cell.cell)?.name ?? cell.cell.workload;
    const head = [nodesOf(cell.system), workload, formatBytes(cell.cell.messageBytes), String(cell.cell.concurrency)];
    if (cell.status === 'failed')
      return [...head, 'failed', '', '', '', '', '', cell.machineLoad1m.toFixed(1), (cell.reason ?? '').slice(0, 60)];
    const latency = headlineLatency(cell);
    return [
      ...head,
      Math.round(cell.throughputMsgsPerSecond).toString(),
      fixed(requestsPerSecond(cell), 0),
      fixed(latency?.p50Ms, 2),
      fixed(latency?.p99Ms, 2),
      fixed(cell.serverCpuSecondsPer1000Msgs, 3),
      `${Math.round(cell.clientCpuShare * 100)}%${cell.isClientBound ? ' bound' : ''}`,
      cell.machineLoad1m.toFixed(1),
      cell.errors > 0 ? `${cell.errors} errors: ${(cell.firstError ?? '').slice(0, 60)}` : '',
    ];
  });
  return {
    header: [
      'nodes',
      'workload',
      'size',
      'conc',
      'msgs/s',
      'req/s',
      'p50 ms',
      'p99 ms',
      'srv cpu s/1k',
      'client cpu',
      'load 1m',
      'notes',
    ],
    rows,
    numericColumns: new Set([0, 3, 4, 5, 6, 7, 8, 9, 10]),
  };
}

export function formatSqsTable(cells: readonly CellMeasurement[]): string {
  return formatTextTable(sqsTable(cells));
}

export function formatSqsMarkdown(cells: readonly CellMeasurement[]): string {
  return formatMarkdownTable(sqsTable(cells));
}

const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

/** One line per (cluster size, workload) over concurrency, of `pick` (cells that failed leave a gap). */
function seriesOf(cells: readonly CellMeasurement[], pick: (cell: CellMeasurement) => number | null): PlotSeries[] {
  const keys = [...new Set(cells.map((c) => `${c.system} ${workloadOfCell(c.cell)?.name ?? c.cell.workload}`))];
  return keys.map((key, i) => ({
    name: key,
    color: palette[i % palette.length] as string,
    style: 'line',
    points: cells
      .filter((c) => `${c.system} ${workloadOfCell(c.cell)?.name ?? c.cell.workload}` === key && c.status === 'ok')
      .map((c) => [c.cell.concurrency, pick(c)] as const)
      .filter((p): p is readonly [number, number] => p[1] !== null)
      .sort((a, b) => a[0] - b[0]),
  }));
}

export function renderSqsCharts(cells: readonly CellMeasurement[]): { throughputSvg: string; latencySvg: string } {
  const throughputSvg = renderPlot({
    title: 'raftq SQS: messages per second by concurrency',
    xLabel: 'requests in flight (concurrency)',
    yLabel: 'messages / s',
    series: seriesOf(cells, (c) => c.throughputMsgsPerSecond),
    xMin: 0,
  });
  const latencySvg = renderPlot({
    title: 'raftq SQS: p99 latency of one operation by concurrency',
    xLabel: 'requests in flight (concurrency)',
    yLabel: 'p99 ms (log)',
    series: seriesOf(cells, (c) => headlineLatency(c)?.p99Ms ?? null),
    yScale: 'log',
    xMin: 0,
  });
  return { throughputSvg, latencySvg };
}

export function renderSqsSection(result: BenchResult, resultFile: string, command: string): string {
  const loads = result.cells.map((c) => c.machineLoad1m);
  const loadNote =
    loads.length === 0
      ? ''
      : ` The machine's one-minute load average ran from ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} during the cells (2 cores: above 2, other work competed with the bench).`;
  return [
    `Run of ${result.startedAt} (\`${command}\`, ${result.host.cpus} cores, Node ${result.host.node}); raw figures in \`${resultFile}\`.${loadNote}`,
    '',
    formatSqsMarkdown(result.cells),
  ].join('\n');
}

/** The document with the SQS block replaced; throws when its markers are missing. */
export function replaceSqsSection(doc: string, generated: string, docPath: string): string {
  return replaceGeneratedBlock(doc, { start: sqsGeneratedStart, end: sqsGeneratedEnd }, generated, docPath);
}

export function updateSqsSection(docPath: string, generated: string): void {
  writeFileSync(docPath, replaceSqsSection(readFileSync(docPath, 'utf8'), generated, docPath));
}
