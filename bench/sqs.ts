// `npm run bench:sqs`: raftq's SQS endpoint alone, one node and then three nodes (started with its
// own CLI by bench/peers/raftq.sh, data in temporary directories, Raft log fsynced), under
// SendMessage, SendMessageBatch (10) and ReceiveMessage (10) + DeleteMessageBatch at several
// concurrencies. The load is the side-by-side bench's own generator (raw JSON-protocol HTTP over
// keep-alive pools, pre-built bodies, several client processes); the client's CPU is reported
// beside every figure. Prints a table, writes bench/results/sqs-<date>.json (the side-by-side
// result shape) and two SVG charts.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BenchUsageError } from './bench-options.js';
import { describeCell, failedCell, measureCell } from './measure-cell.js';
import { benchResultProblems, benchResultSchemaVersion, type BenchResult, type CellMeasurement, type SystemRun } from './report/bench-result.js';
import { ProgressDisplay } from './report/progress-display.js';
import { freePorts } from './systems/free-ports.js';
import { repoRoot, startPeer, stopPeer } from './systems/peer-process.js';
import { findSystem, type SystemDefinition } from './systems/system-catalog.js';
import { parseSqsBenchOptions, type SqsBenchOptions } from './sqs/sqs-bench-options.js';
import { formatSqsTable, renderSqsCharts, renderSqsSection, updateSqsSection } from './sqs/sqs-report.js';
import { cellOf } from './sqs/sqs-workloads.js';
import type { CellSpec } from './cell-spec.js';

/** A three-node cluster elects and becomes ready within seconds; on a loaded machine, allow a minute. */
const clusterStartMsMax = 90_000;

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function raftqSystem(nodes: number): SystemDefinition {
  const system = findSystem(`raftq-${nodes}`);
  if (system === undefined) throw new TypeError(`the system catalog has no raftq-${nodes}`);
  return system;
}

async function benchCluster(system: SystemDefinition, options: SqsBenchOptions, cells: readonly CellSpec[], progress: ProgressDisplay, position: { index: number; count: number }): Promise<{ run: SystemRun; cells: CellMeasurement[] }> {
  const base = { id: system.id, label: system.label, durability: system.durability };
  const dir = mkdtempSync(join(tmpdir(), `raftq-bench-sqs-${system.id}-`));
  const measured: CellMeasurement[] = [];
  try {
    const ports = await freePorts(system.portCount);
    const startedMs = Date.now();
    progress.log(`starting ${system.label}…`);
    let pids: number[];
    try {
      pids = await startPeer(system.script, dir, system.scriptArgs(ports), clusterStartMsMax);
    } catch (err) {
      progress.log(`  failed to start: ${describeError(err)}`);
      return { run: { ...base, status: 'failed', reason: `did not start: ${describeError(err)}` }, cells: [] };
    }
    const startSeconds = (Date.now() - startedMs) / 1000;
    progress.log(`  ready in ${startSeconds.toFixed(1)} s (pids ${pids.join(' ')})`);
    const target = system.target(ports);
    for (const [i, cell] of cells.entries()) {
      const context = {
        system, target, serverPids: pids, timing: options.timing, clientProcesses: options.clientProcesses,
        queueName: `bench-sqs-${i}-${Date.now().toString(36)}`,
        onProgress: (phase: string, totals: { produced: number; consumed: number; errors: number }, elapsedMs: number) =>
          progress.status({ systemIndex: position.index, systemCount: position.count, system: system.id, cellIndex: i + 1, cellCount: cells.length, phase, ...totals, elapsedMs }),
      };
      let result: CellMeasurement;
      try {
        result = await measureCell(context, cell);
      } catch (err) {
        result = failedCell(system.id, cell, describeError(err));
      }
      measured.push(result);
      progress.log(result.status === 'ok'
        ? `  ${describeCell(cell)}: ${Math.round(result.throughputMsgsPerSecond)} msgs/s, client cpu ${Math.round(result.clientCpuShare * 100)}%${result.errors > 0 ? `, ${result.errors} errors (${result.firstError})` : ''}`
        : `  ${describeCell(cell)}: failed: ${result.reason}`);
    }
    return { run: { ...base, status: 'ran', startSeconds }, cells: measured };
  } finally {
    progress.log(`stopping ${system.id}`);
    stopPeer(system.script, dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

function commandOf(argv: readonly string[]): string {
  return `npm run bench:sqs${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseSqsBenchOptions(argv, join(repoRoot, 'bench', 'results'));
  const cells = options.workloads.flatMap((w) => options.concurrencies.map((c) => cellOf(w, options.messageBytes, c)));
  const progress = new ProgressDisplay();
  const startedAt = new Date().toISOString();
  progress.log(`raftq SQS bench: ${options.nodeCounts.join(' and ')} node(s) × ${cells.length} cells${options.isQuick ? ' (quick)' : ''}`);
  const runs: SystemRun[] = [];
  const measured: CellMeasurement[] = [];
  let isStopRequested = false;
  process.once('SIGINT', () => { isStopRequested = true; progress.log('interrupted: finishing the current cluster, then reporting'); });
  for (const [index, nodes] of options.nodeCounts.entries()) {
    const system = raftqSystem(nodes);
    if (isStopRequested) {
      runs.push({ id: system.id, label: system.label, durability: system.durability, status: 'skipped', reason: 'run interrupted' });
      continue;
    }
    const outcome = await benchCluster(system, options, cells, progress, { index: index + 1, count: options.nodeCounts.length });
    runs.push(outcome.run);
    measured.push(...outcome.cells);
  }
  const result: BenchResult = {
    schemaVersion: benchResultSchemaVersion,
    startedAt,
    finishedAt: new Date().toISOString(),
    host: { cpus: cpus().length, node: process.version, platform: `${process.platform} ${process.arch}` },
    options: { quick: options.isQuick, systems: runs.map((r) => r.id) },
    systems: runs,
    cells: measured,
    ratios: [],
  };
  const problems = benchResultProblems(result);
  if (problems.length > 0) progress.log(`warning: the result file is malformed: ${problems.slice(0, 5).join('; ')}`);

  const stamp = startedAt.replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  mkdirSync(options.resultsDir, { recursive: true });
  const jsonPath = join(options.resultsDir, `sqs-${stamp}.json`);
  writeFileSync(jsonPath, `${JSON.stringify({ ...result, command: commandOf(argv) }, null, 2)}\n`);
  const charts = renderSqsCharts(measured);
  const throughputPath = join(options.resultsDir, `sqs-${stamp}-throughput.svg`);
  const latencyPath = join(options.resultsDir, `sqs-${stamp}-latency.svg`);
  writeFileSync(throughputPath, charts.throughputSvg);
  writeFileSync(latencyPath, charts.latencySvg);

  process.stdout.write(`\n${formatSqsTable(measured)}\n\n`);
  for (const run of runs) if (run.status !== 'ran') process.stdout.write(`${run.status}: ${run.id}: ${run.reason}\n`);
  process.stdout.write(`results: ${jsonPath}\ncharts: ${throughputPath} ${latencyPath}\n`);
  if (options.isWritingDocs) {
    const docPath = join(repoRoot, 'docs', 'BENCHMARKS.md');
    updateSqsSection(docPath, renderSqsSection(result, relative(repoRoot, jsonPath), commandOf(argv.filter((a) => a !== '--write-docs'))));
    process.stdout.write(`updated ${docPath}\n`);
  }
  if (!measured.some((m) => m.status === 'ok')) process.exitCode = 1;
}

main().catch((err: unknown) => {
  if (err instanceof BenchUsageError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`bench:sqs failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
