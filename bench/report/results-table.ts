// Every measurement as one table: throughput, latency percentiles of the cell's headline
// operation, server CPU per 1000 messages, and the client's CPU beside it so that a figure the
// load generator capped reads as one.
import { cellKey } from '../cell-spec.js';
import type { CellMeasurement } from './bench-result.js';
import { formatMarkdownTable, formatTextTable, type Table } from './text-table.js';
import type { LatencySummary } from '../stats/latency-summary.js';

/** The latency a reader compares for a cell: its produce op, its consume op, or end to end. */
export function headlineLatency(cell: CellMeasurement): LatencySummary | null {
  switch (cell.cell.workload) {
    case 'produce':
      return cell.latency.produce;
    case 'consume':
      return cell.latency.consume;
    case 'produce-consume':
      return cell.latency.endToEnd ?? cell.latency.consume;
  }
}

function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined ? '—' : value.toFixed(digits);
}

function resultsTable(cells: readonly CellMeasurement[]): Table {
  const rows = cells.map((cell) => {
    const latency = headlineLatency(cell);
    if (cell.status === 'failed')
      return [
        cellKey(cell.cell),
        cell.system,
        'failed',
        '',
        '',
        '',
        '',
        '',
        cell.machineLoad1m.toFixed(1),
        (cell.reason ?? '').slice(0, 60),
      ];
    return [
      cellKey(cell.cell),
      cell.system,
      Math.round(cell.throughputMsgsPerSecond).toString(),
      fixed(latency?.p50Ms, 2),
      fixed(latency?.p99Ms, 2),
      fixed(latency?.p999Ms, 2),
      fixed(cell.serverCpuSecondsPer1000Msgs, 3),
      `${Math.round(cell.clientCpuShare * 100)}%${cell.isClientBound ? ' bound' : ''}`,
      cell.machineLoad1m.toFixed(1),
      cell.errors > 0 ? `${cell.errors} errors` : '',
    ];
  });
  return {
    header: [
      'cell',
      'system',
      'msgs/s',
      'p50 ms',
      'p99 ms',
      'p99.9 ms',
      'srv cpu s/1k',
      'client cpu',
      'load 1m',
      'notes',
    ],
    rows,
    numericColumns: new Set([2, 3, 4, 5, 6, 7, 8]),
  };
}

export function formatResultsTable(cells: readonly CellMeasurement[]): string {
  return formatTextTable(resultsTable(cells));
}

export function formatResultsMarkdown(cells: readonly CellMeasurement[]): string {
  return formatMarkdownTable(resultsTable(cells));
}
