// `npm run bench`: the same workloads against raftq (one node, three nodes) and its peers, in one
// run, with a progress line; prints the results and the raftq/peer ratios, writes
// bench/results/<date>.json and an SVG chart per workload.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BenchUsageError, parseBenchOptions, type BenchOptions } from './bench-options.js';
import { cellKey, expandMatrix } from './cell-spec.js';
import { benchSystem } from './system-bench.js';
import {
  benchResultProblems,
  benchResultSchemaVersion,
  type BenchResult,
  type CellMeasurement,
  type SystemRun,
} from './report/bench-result.js';
import { ProgressDisplay } from './report/progress-display.js';
import { computeRatios, formatRatioTable } from './report/ratio-table.js';
import { formatResultsTable } from './report/results-table.js';
import { renderWorkloadCharts } from './report/workload-charts.js';
import { updateBenchmarksDoc } from './report/benchmarks-doc.js';
import { installDebianPeers, repoRoot } from './systems/peer-process.js';
import { systemCatalog } from './systems/system-catalog.js';

/** Starting a three-node RabbitMQ cluster on a loaded two-core machine can take a minute or two. */
const systemStartMsMax = 240_000;

function writeResults(result: BenchResult, options: BenchOptions, systemOrder: readonly string[]): string {
  const stamp = result.startedAt.replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  mkdirSync(options.resultsDir, { recursive: true });
  const jsonPath = join(options.resultsDir, `${stamp}.json`);
  writeFileSync(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
  const chartDir = join(options.resultsDir, `${stamp}-charts`);
  mkdirSync(chartDir, { recursive: true });
  for (const chart of renderWorkloadCharts(result.cells, systemOrder))
    writeFileSync(join(chartDir, `${chart.workloadKey}.svg`), chart.svg);
  return jsonPath;
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), join(repoRoot, 'bench', 'results'));
  const cells = expandMatrix(options.matrix);
  const selected = systemCatalog.filter((s) => options.systems.includes(s.id));
  const progress = new ProgressDisplay();
  if (options.opTraceDir !== null) mkdirSync(options.opTraceDir, { recursive: true });
  const startedAt = new Date().toISOString();
  progress.log(`raftq bench: ${selected.length} systems × ${cells.length} cells${options.isQuick ? ' (quick)' : ''}`);

  const debianPeers = [...new Set(selected.flatMap((s) => (s.debianPeer === undefined ? [] : [s.debianPeer])))];
  const notInstalled = installDebianPeers(debianPeers);
  const runs: SystemRun[] = [];
  const measured: CellMeasurement[] = [];
  let stopRequested = false;
  process.once('SIGINT', () => {
    stopRequested = true;
    progress.log('interrupted: finishing the current system, then reporting');
  });
  for (const [index, system] of selected.entries()) {
    const reason = system.debianPeer === undefined ? undefined : notInstalled.get(system.debianPeer);
    if (reason !== undefined || stopRequested) {
      const why = reason ?? 'run interrupted';
      progress.log(`skipped: ${system.id}: ${why}`);
      runs.push({ id: system.id, label: system.label, durability: system.durability, status: 'skipped', reason: why });
      continue;
    }
    const outcome = await benchSystem(
      system,
      {
        timing: options.timing,
        clientProcesses: options.clientProcesses,
        onlyNode: options.onlyNode,
        startMsMax: systemStartMsMax,
        namePrefix: 'bench',
        position: { index: index + 1, count: options.systems.length },
        opTraceDir: options.opTraceDir,
      },
      cells,
      progress,
    );
    runs.push(outcome.run);
    measured.push(...outcome.cells);
  }

  const subjects = selected.filter((s) => s.isSubject).map((s) => s.id);
  const ratios = computeRatios(measured, subjects);
  const result: BenchResult = {
    schemaVersion: benchResultSchemaVersion,
    startedAt,
    finishedAt: new Date().toISOString(),
    host: { cpus: cpus().length, node: process.version, platform: `${process.platform} ${process.arch}` },
    options: { quick: options.isQuick, systems: options.systems },
    systems: runs,
    cells: measured,
    ratios,
  };
  const problems = benchResultProblems(result);
  if (problems.length > 0) progress.log(`warning: the result file is malformed: ${problems.slice(0, 5).join('; ')}`);
  const systemOrder = selected.map((s) => s.id);
  const jsonPath = writeResults(result, options, systemOrder);

  process.stdout.write(`\n${formatResultsTable(measured)}\n\n`);
  if (ratios.length > 0)
    process.stdout.write(
      `raftq ÷ peer, messages per second (>1: raftq faster; *: a side was client-bound)\n${formatRatioTable(ratios)}\n\n`,
    );
  for (const run of runs) if (run.status !== 'ran') process.stdout.write(`${run.status}: ${run.id}: ${run.reason}\n`);
  process.stdout.write(`results: ${jsonPath}\n`);
  if (options.isWritingDocs) {
    const docPath = join(repoRoot, 'docs', 'BENCHMARKS.md');
    updateBenchmarksDoc(docPath, result, jsonPath);
    process.stdout.write(`updated ${docPath}\n`);
  }
  const cellsSeen = new Set(measured.map((m) => cellKey(m.cell)));
  if (cellsSeen.size === 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  if (err instanceof BenchUsageError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
