// The shape of bench/results/<date>.json, and a check of it: the file is what docs/BENCHMARKS.md
// and later comparisons are built from, so a run that writes a malformed one should say so.
import type { CellSpec } from '../cell-spec.js';
import { workloadKinds } from '../cell-spec.js';
import type { LatencySummary } from '../stats/latency-summary.js';
import type { RatioRow } from './ratio-table.js';

export const benchResultSchemaVersion = 1;

export interface SystemRun {
  readonly id: string;
  readonly label: string;
  /** What an acknowledgement guarantees, in words. */
  readonly durability: string;
  readonly status: 'ran' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  readonly reason?: string;
  readonly startSeconds?: number;
}

export interface CellLatency {
  /** One SendMessage(Batch) / publish round trip. */
  readonly produce: LatencySummary | null;
  /** One receive-and-delete round (receive, then delete of what it returned). */
  readonly consume: LatencySummary | null;
  /** From the start of the send to the message in the consumer's hands. */
  readonly endToEnd: LatencySummary | null;
}

export interface CellMeasurement {
  readonly system: string;
  readonly cell: CellSpec;
  readonly status: 'ok' | 'failed';
  readonly reason?: string;
  readonly windowSeconds: number;
  readonly producedMessages: number;
  readonly consumedMessages: number;
  /** The figure ratios compare: produced/s for produce, consumed/s for consume and produce-consume. */
  readonly throughputMsgsPerSecond: number;
  readonly latency: CellLatency;
  /** CPU of every server process (and its children) during the measured window. */
  readonly serverCpuSeconds: number;
  readonly serverCpuSecondsPer1000Msgs: number | null;
  /** CPU of the load generator's processes during the window. */
  readonly clientCpuSeconds: number;
  readonly clientProcesses: number;
  /** Client CPU as a share of its processes' capacity (1 = every client process busy all the time). */
  readonly clientCpuShare: number;
  /** True when the client, not the system, may have set the figure. */
  readonly isClientBound: boolean;
  readonly errors: number;
  readonly firstError?: string;
  /** The machine's one-minute load average when the cell ended: other work on a shared machine shows here. */
  readonly machineLoad1m: number;
  /**
   * Consume cells: the messages queued for the measured phase; `isRefilled` when a first prefill ran
   * out before the window ended and this larger one was measured instead (measure-cell.ts).
   */
  readonly prefilledMessages?: number;
  readonly isRefilled?: boolean;
}

export interface BenchResult {
  readonly schemaVersion: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly host: { readonly cpus: number; readonly node: string; readonly platform: string };
  readonly options: { readonly quick: boolean; readonly systems: readonly string[] };
  readonly systems: readonly SystemRun[];
  readonly cells: readonly CellMeasurement[];
  readonly ratios: readonly RatioRow[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function latencyProblems(where: string, value: unknown): string[] {
  if (value === null) return [];
  if (!isObject(value)) return [`${where}: expected a latency summary or null`];
  const problems: string[] = [];
  for (const field of ['count', 'p50Ms', 'p99Ms', 'p999Ms', 'maxMs', 'meanMs']) {
    if (!isFiniteNumber(value[field])) problems.push(`${where}.${field}: expected a number`);
  }
  if (problems.length === 0) {
    const { p50Ms, p99Ms, p999Ms, maxMs } = value as unknown as LatencySummary;
    if (!(p50Ms <= p99Ms && p99Ms <= p999Ms && p999Ms <= maxMs)) problems.push(`${where}: percentiles out of order`);
  }
  return problems;
}

function cellProblems(where: string, value: unknown, systemIds: Set<string>): string[] {
  if (!isObject(value)) return [`${where}: expected an object`];
  const problems: string[] = [];
  if (typeof value.system !== 'string' || !systemIds.has(value.system))
    problems.push(`${where}.system: not one of the systems`);
  const cell = value.cell;
  if (
    !isObject(cell) ||
    !workloadKinds.includes(cell.workload as never) ||
    !isFiniteNumber(cell.messageBytes) ||
    !isFiniteNumber(cell.batchSize) ||
    !isFiniteNumber(cell.concurrency)
  ) {
    problems.push(`${where}.cell: expected {workload, messageBytes, batchSize, concurrency}`);
  }
  if (value.status !== 'ok' && value.status !== 'failed') problems.push(`${where}.status: expected ok or failed`);
  for (const field of [
    'windowSeconds',
    'producedMessages',
    'consumedMessages',
    'throughputMsgsPerSecond',
    'serverCpuSeconds',
    'clientCpuSeconds',
    'clientProcesses',
    'clientCpuShare',
    'errors',
    'machineLoad1m',
  ]) {
    const n = value[field];
    if (!isFiniteNumber(n) || n < 0) problems.push(`${where}.${field}: expected a non-negative number`);
  }
  if (value.serverCpuSecondsPer1000Msgs !== null && !isFiniteNumber(value.serverCpuSecondsPer1000Msgs)) {
    problems.push(`${where}.serverCpuSecondsPer1000Msgs: expected a number or null`);
  }
  if (typeof value.isClientBound !== 'boolean') problems.push(`${where}.isClientBound: expected a boolean`);
  if (!isObject(value.latency)) problems.push(`${where}.latency: expected an object`);
  else
    for (const kind of ['produce', 'consume', 'endToEnd'])
      problems.push(...latencyProblems(`${where}.latency.${kind}`, value.latency[kind]));
  return problems;
}

/** Everything wrong with `value` as a BenchResult; empty when it is one. */
export function benchResultProblems(value: unknown): string[] {
  if (!isObject(value)) return ['expected an object'];
  const problems: string[] = [];
  if (value.schemaVersion !== benchResultSchemaVersion)
    problems.push(`schemaVersion: expected ${benchResultSchemaVersion}`);
  for (const field of ['startedAt', 'finishedAt']) {
    if (typeof value[field] !== 'string' || Number.isNaN(Date.parse(value[field] as string)))
      problems.push(`${field}: expected an ISO date`);
  }
  if (!Array.isArray(value.systems)) return [...problems, 'systems: expected an array'];
  const systemIds = new Set<string>();
  value.systems.forEach((system: unknown, i) => {
    if (
      !isObject(system) ||
      typeof system.id !== 'string' ||
      typeof system.label !== 'string' ||
      typeof system.durability !== 'string'
    ) {
      problems.push(`systems[${i}]: expected {id, label, durability, status}`);
      return;
    }
    if (!['ran', 'skipped', 'failed'].includes(system.status as string))
      problems.push(`systems[${i}].status: expected ran, skipped or failed`);
    if (system.status !== 'ran' && typeof system.reason !== 'string')
      problems.push(`systems[${i}].reason: a skipped or failed system says why`);
    systemIds.add(system.id);
  });
  if (!Array.isArray(value.cells)) problems.push('cells: expected an array');
  else value.cells.forEach((cell: unknown, i) => problems.push(...cellProblems(`cells[${i}]`, cell, systemIds)));
  if (!Array.isArray(value.ratios)) problems.push('ratios: expected an array');
  else
    value.ratios.forEach((row: unknown, i) => {
      if (
        !isObject(row) ||
        typeof row.cellKey !== 'string' ||
        !systemIds.has(row.subject as string) ||
        !systemIds.has(row.peer as string) ||
        !(row.ratio === null || isFiniteNumber(row.ratio))
      ) {
        problems.push(`ratios[${i}]: expected {cellKey, subject, peer, ratio} of known systems`);
      }
    });
  return problems;
}
