// Runs the cells of one system: start it with its peer script in a temporary directory, measure
// every cell with the shared load generator, stop it. Shared by `npm run bench` and `npm run bench:sqs`.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchOptions } from './bench-options.js';
import type { CellSpec } from './cell-spec.js';
import { describeCell, failedCell, measureCell, type CellContext } from './measure-cell.js';
import type { CellMeasurement, SystemRun } from './report/bench-result.js';
import type { ProgressDisplay } from './report/progress-display.js';
import { onlyNodeOf } from './load/load-target.js';
import { processTreeCpuSeconds } from './stats/process-cpu.js';
import { afterWarmUpQuiet, waitForQuiet, warmUpSystem } from './system-warm-up.js';
import { freePorts } from './systems/free-ports.js';
import { startPeer, stopPeer } from './systems/peer-process.js';
import type { SystemDefinition } from './systems/system-catalog.js';

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface SystemOutcome {
  readonly run: SystemRun;
  readonly cells: CellMeasurement[];
}

export interface SystemBenchPlan {
  readonly timing: BenchOptions['timing'];
  readonly clientProcesses: number;
  /** How long the system may take to start before it is reported as failed. */
  readonly startMsMax: number;
  /** Prefix of the temporary directory and of the queue names, e.g. `bench` or `bench-sqs`. */
  readonly namePrefix: string;
  /** Every client to this node (1-based) instead of all of them (`--only-node`). */
  readonly onlyNode?: number | null;
  /** This system's place in the run, for the progress line. */
  readonly position: { readonly index: number; readonly count: number };
  /** `--op-trace`: each cell's operation trace, and at the stop the system's LevelDB logs, go here. */
  readonly opTraceDir?: string | null;
}

/**
 * Copies the LOG of every LevelDB database under `dataDir` (a directory holding CURRENT and LOG)
 * to `toDir` as SYSTEM.PATH.leveldb.log: LevelDB writes each memtable flush and compaction there
 * with its time, which op-timeline.ts lays beside the operations.
 */
function keepLevelDbLogs(systemId: string, dataDir: string, toDir: string): void {
  const logs = readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).filter(
    (path) => path.split(sep).at(-1) === 'LOG' && existsSync(join(dataDir, dirname(path), 'CURRENT')),
  );
  for (const path of logs) {
    const name = dirname(path).split(sep).join('.');
    copyFileSync(join(dataDir, path), join(toDir, `${systemId}.${name}.leveldb.log`));
  }
}

export async function benchSystem(
  system: SystemDefinition,
  plan: SystemBenchPlan,
  cells: readonly CellSpec[],
  progress: ProgressDisplay,
): Promise<SystemOutcome> {
  const base = { id: system.id, label: system.label, durability: system.durability };
  const dir = mkdtempSync(join(tmpdir(), `raftq-${plan.namePrefix}-${system.id}-`));
  const measured: CellMeasurement[] = [];
  try {
    const ports = await freePorts(system.portCount);
    const startedMs = Date.now();
    progress.log(`starting ${system.label}…`);
    let pids: number[];
    try {
      pids = await startPeer(system.script, dir, system.scriptArgs(ports), plan.startMsMax);
    } catch (err) {
      progress.log(`  failed to start: ${describeError(err)}`);
      return { run: { ...base, status: 'failed', reason: `did not start: ${describeError(err)}` }, cells: [] };
    }
    const startSeconds = (Date.now() - startedMs) / 1000;
    progress.log(`  ready in ${startSeconds.toFixed(1)} s (pids ${pids.join(' ')})`);
    const spread = system.target(ports);
    let target = spread;
    try {
      if (plan.onlyNode != null) target = onlyNodeOf(spread, plan.onlyNode);
    } catch (err) {
      progress.log(`  ${describeError(err)}`);
      return { run: { ...base, status: 'failed', reason: describeError(err) }, cells: [] };
    }
    const contextOf = (cellIndex: number, queueName: string): CellContext => ({
      system,
      target,
      serverPids: pids,
      timing: plan.timing,
      clientProcesses: plan.clientProcesses,
      queueName,
      opTraceDir: plan.opTraceDir ?? null,
      onProgress: (phase, totals, elapsedMs) =>
        progress.status({
          systemIndex: plan.position.index,
          systemCount: plan.position.count,
          system: system.id,
          cellIndex,
          cellCount: cells.length,
          phase,
          ...totals,
          elapsedMs,
        }),
    });
    /** Waits until the system's processes are quiet (see afterWarmUpQuiet): after the warm-up, and between cells. */
    const untilQuiet = () =>
      waitForQuiet(
        () => processTreeCpuSeconds(pids),
        (ms) => sleep(ms),
      );
    if (plan.timing.systemWarmupMs > 0) {
      const warmStartedMs = Date.now();
      progress.log(
        `  warming up for ${(plan.timing.systemWarmupMs / 1000).toFixed(0)} s (produce-consume, not measured)…`,
      );
      try {
        const moved = await warmUpSystem(contextOf(0, `${plan.namePrefix}-warmup-${Date.now().toString(36)}`), cells);
        const quiet = await untilQuiet();
        progress.log(
          `  warmed up in ${((Date.now() - warmStartedMs) / 1000).toFixed(1)} s (${moved} messages); ${quiet.isQuiet ? 'quiet' : 'still busy'} after ${(quiet.waitedMs / 1000).toFixed(0)} s more`,
        );
      } catch (err) {
        progress.log(`  warm-up failed (${describeError(err)}); measuring anyway`);
      }
    }
    for (const [i, cell] of cells.entries()) {
      if (i > 0) {
        // The previous cell dropped its queue: clearing it is the bench's cleanup, not this cell's work.
        const quiet = await untilQuiet();
        if (quiet.waitedMs > afterWarmUpQuiet.intervalMs || !quiet.isQuiet)
          progress.log(`  ${quiet.isQuiet ? 'quiet' : 'still busy'} after ${(quiet.waitedMs / 1000).toFixed(0)} s`);
      }
      const context = contextOf(i + 1, `${plan.namePrefix}-${i}-${Date.now().toString(36)}`);
      let result: CellMeasurement;
      try {
        result = await measureCell(context, cell);
      } catch (err) {
        result = failedCell(system.id, cell, describeError(err));
      }
      measured.push(result);
      progress.log(
        result.status === 'ok'
          ? `  ${describeCell(cell)}: ${Math.round(result.throughputMsgsPerSecond)} msgs/s, client cpu ${Math.round(result.clientCpuShare * 100)}%${result.isRefilled === true ? `, measured again from ${result.prefilledMessages} queued` : ''}${result.errors > 0 ? `, ${result.errors} errors (${result.firstError})` : ''}`
          : `  ${describeCell(cell)}: failed: ${result.reason}`,
      );
    }
    return { run: { ...base, status: 'ran', startSeconds }, cells: measured };
  } finally {
    progress.log(`stopping ${system.id}`);
    stopPeer(system.script, dir);
    if (plan.opTraceDir != null) keepLevelDbLogs(system.id, dir, plan.opTraceDir);
    rmSync(dir, { recursive: true, force: true });
  }
}
