// `npm run bench:sqs`: raftq's SQS endpoint alone, one node and then three nodes (started with its
// own CLI by bench/peers/raftq.sh, data in temporary directories, Raft log fsynced), under
// SendMessage, SendMessageBatch (10) and ReceiveMessage (10) + DeleteMessageBatch at several
// concurrencies. The load is the side-by-side bench's own generator (raw JSON-protocol HTTP over
// keep-alive pools, pre-built bodies, several client processes); the client's CPU is reported
// beside every figure. Prints a table, writes bench/results/sqs-<date>.json (the side-by-side
// result shape) and two SVG charts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { BenchUsageError } from './bench-options.js';
import { benchSystem } from './system-bench.js';
import {
  benchResultProblems,
  benchResultSchemaVersion,
  type BenchResult,
  type CellMeasurement,
  type SystemRun,
} from './report/bench-result.js';
import { ProgressDisplay } from './report/progress-display.js';
import { repoRoot } from './systems/peer-process.js';
import { findSystem, type SystemDefinition } from './systems/system-catalog.js';
import { parseSqsBenchOptions } from './sqs/sqs-bench-options.js';
import { formatSqsTable, renderSqsCharts, renderSqsSection, updateSqsSection } from './sqs/sqs-report.js';
import { cellOf } from './sqs/sqs-workloads.js';

/** A three-node cluster elects and becomes ready within seconds; on a loaded machine, allow a minute. */
const clusterStartMsMax = 90_000;

function raftqSystem(nodes: number): SystemDefinition {
  const system = findSystem(`raftq-${nodes}`);
  if (system === undefined) throw new TypeError(`the system catalog has no raftq-${nodes}`);
  return system;
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
  progress.log(
    `raftq SQS bench: ${options.nodeCounts.join(' and ')} node(s) × ${cells.length} cells${options.isQuick ? ' (quick)' : ''}`,
  );
  const runs: SystemRun[] = [];
  const measured: CellMeasurement[] = [];
  let isStopRequested = false;
  process.once('SIGINT', () => {
    isStopRequested = true;
    progress.log('interrupted: finishing the current cluster, then reporting');
  });
  for (const [index, nodes] of options.nodeCounts.entries()) {
    const system = raftqSystem(nodes);
    if (isStopRequested) {
      runs.push({
        id: system.id,
        label: system.label,
        durability: system.durability,
        status: 'skipped',
        reason: 'run interrupted',
      });
      continue;
    }
    const outcome = await benchSystem(
      system,
      {
        timing: options.timing,
        clientProcesses: options.clientProcesses,
        startMsMax: clusterStartMsMax,
        namePrefix: 'bench-sqs',
        position: { index: index + 1, count: options.nodeCounts.length },
      },
      cells,
      progress,
    );
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
    updateSqsSection(
      docPath,
      renderSqsSection(result, relative(repoRoot, jsonPath), commandOf(argv.filter((a) => a !== '--write-docs'))),
    );
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
