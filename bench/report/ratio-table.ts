// raftq's throughput divided by each peer's, cell by cell: the figure the bench exists for. A
// ratio above 1 means raftq moved more messages per second than the peer in the same cell of the
// same run. Absolute numbers drift on a shared machine; ratios from one run do much less.
import type { CellMeasurement } from './bench-result.js';
import { cellKey } from '../cell-spec.js';
import { formatMarkdownTable, formatTextTable, type Table } from './text-table.js';

export interface RatioRow {
  readonly cellKey: string;
  /** The raftq configuration measured (raftq-1, raftq-3). */
  readonly subject: string;
  readonly peer: string;
  readonly subjectMsgsPerSecond: number | null;
  readonly peerMsgsPerSecond: number | null;
  /** subject / peer; null when either side failed or measured nothing. */
  readonly ratio: number | null;
  /** Either side's figure may have been set by the load generator rather than the system. */
  readonly isClientBound: boolean;
}

function usableThroughput(cell: CellMeasurement | undefined): number | null {
  if (cell === undefined || cell.status !== 'ok' || !(cell.throughputMsgsPerSecond > 0)) return null;
  return cell.throughputMsgsPerSecond;
}

/** A row per (cell, subject, peer) where the subject and the peer both have a measurement of that cell. */
export function computeRatios(cells: readonly CellMeasurement[], subjects: readonly string[]): RatioRow[] {
  const byKey = new Map<string, Map<string, CellMeasurement>>();
  for (const cell of cells) {
    const key = cellKey(cell.cell);
    const bySystem = byKey.get(key) ?? new Map<string, CellMeasurement>();
    bySystem.set(cell.system, cell);
    byKey.set(key, bySystem);
  }
  const rows: RatioRow[] = [];
  for (const [key, bySystem] of byKey) {
    for (const subject of subjects) {
      const subjectCell = bySystem.get(subject);
      if (subjectCell === undefined) continue;
      for (const [peer, peerCell] of bySystem) {
        if (subjects.includes(peer)) continue;
        const subjectRate = usableThroughput(subjectCell);
        const peerRate = usableThroughput(peerCell);
        rows.push({
          cellKey: key,
          subject,
          peer,
          subjectMsgsPerSecond: subjectRate,
          peerMsgsPerSecond: peerRate,
          ratio: subjectRate !== null && peerRate !== null ? subjectRate / peerRate : null,
          isClientBound: subjectCell.isClientBound || peerCell.isClientBound,
        });
      }
    }
  }
  return rows;
}

/** The geometric mean of the usable ratios of one (subject, peer) pair: one number per pair. */
export function geometricMeanRatio(rows: readonly RatioRow[]): number | null {
  const ratios = rows.map((r) => r.ratio).filter((r): r is number => r !== null && r > 0);
  if (ratios.length === 0) return null;
  return Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
}

export function formatRatio(ratio: number | null, isClientBound = false): string {
  if (ratio === null) return '—';
  const digits = ratio >= 10 ? 0 : ratio >= 1 ? 2 : 3;
  return `${ratio.toFixed(digits)}×${isClientBound ? '*' : ''}`;
}

function ratioTable(rows: readonly RatioRow[]): Table {
  const peers = [...new Set(rows.map((r) => r.peer))];
  const lines = [...new Set(rows.map((r) => `${r.cellKey}\u0000${r.subject}`))];
  const find = (key: string, subject: string, peer: string): RatioRow | undefined =>
    rows.find((r) => r.cellKey === key && r.subject === subject && r.peer === peer);
  const body = lines.map((line) => {
    const [key = '', subject = ''] = line.split('\u0000');
    return [
      key,
      subject,
      ...peers.map((peer) => {
        const row = find(key, subject, peer);
        return row === undefined ? '' : formatRatio(row.ratio, row.isClientBound);
      }),
    ];
  });
  const subjects = [...new Set(rows.map((r) => r.subject))];
  const means = subjects.map((subject) => [
    'geometric mean',
    subject,
    ...peers.map((peer) =>
      formatRatio(geometricMeanRatio(rows.filter((r) => r.subject === subject && r.peer === peer))),
    ),
  ]);
  const numericColumns = new Set(peers.map((_, i) => i + 2));
  return { header: ['cell', 'raftq', ...peers.map((p) => `÷ ${p}`)], rows: [...body, ...means], numericColumns };
}

/** Ratios as an aligned text table (rows: cell × raftq configuration; columns: peers). `*`: client-bound. */
export function formatRatioTable(rows: readonly RatioRow[]): string {
  return formatTextTable(ratioTable(rows));
}

export function formatRatioMarkdown(rows: readonly RatioRow[]): string {
  return formatMarkdownTable(ratioTable(rows));
}
