// The raftq node(s) a soak run drives: `node dist/src/cli/main.js serve` processes on free
// loopback ports with their own data directories, and what the run samples from them — /metrics,
// /status and the bytes of DATA/state on disk.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePorts } from '../systems/free-ports.js';
import { serveNodeFlags } from '../../src/cli/serve-node-flags.js';

const mainScript = new URL('../../src/cli/main.js', import.meta.url).pathname;
/** The nodes' RAFTQ_CLUSTER_SECRET: admin calls other than the public ones present it (x-raftq-cluster-secret). */
export const soakClusterSecret = 'soak';

export interface SoakNode {
  readonly id: string;
  readonly sqsEndpoint: string;
  readonly adminEndpoint: string;
  readonly dataDir: string;
  readonly process: ChildProcess;
}

export class SoakCluster {
  private constructor(readonly nodes: readonly SoakNode[]) {}

  /**
   * `extraArgs` go to `raftq serve`, `nodeFlags` to node.js before the script (e.g. `--cpu-prof
   * --cpu-prof-dir=DIR`, or the profile-on-signal preload).
   */
  static async start(options: {
    nodeCount: number;
    baseDir: string;
    extraArgs: readonly string[];
    nodeFlags?: readonly string[];
  }): Promise<SoakCluster> {
    const ports = await freePorts(options.nodeCount * 3);
    const ids = Array.from({ length: options.nodeCount }, (_, i) => `n${i + 1}`);
    const port = (i: number, k: number) => ports[i * 3 + k] as number;
    const peers = ids.map((id, i) => `${id}=127.0.0.1:${port(i, 2)}`).join(',');
    const nodes = ids.map((id, i): SoakNode => {
      const dataDir = join(options.baseDir, id);
      mkdirSync(dataDir, { recursive: true });
      const log = openSync(join(options.baseDir, `${id}.log`), 'a');
      const args = [
        mainScript,
        'serve',
        '--id',
        id,
        '--data-dir',
        dataDir,
        '--sqs-listen',
        `127.0.0.1:${port(i, 0)}`,
        '--admin-listen',
        `127.0.0.1:${port(i, 1)}`,
        '--raft-listen',
        `127.0.0.1:${port(i, 2)}`,
        '--peers',
        peers,
        '--log-level',
        'warn',
        ...options.extraArgs,
      ];
      const child = spawn(process.execPath, [...serveNodeFlags, ...(options.nodeFlags ?? []), ...args], {
        stdio: ['ignore', log, log],
        env: { ...process.env, RAFTQ_CLUSTER_SECRET: soakClusterSecret },
      });
      closeSync(log);
      return {
        id,
        sqsEndpoint: `http://127.0.0.1:${port(i, 0)}`,
        adminEndpoint: `http://127.0.0.1:${port(i, 1)}`,
        dataDir,
        process: child,
      };
    });
    const cluster = new SoakCluster(nodes);
    await cluster.waitReady(60_000);
    return cluster;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const node of this.nodes) {
      for (;;) {
        if (node.process.exitCode !== null)
          throw new Error(`node ${node.id} exited during start-up (see its log in the run directory)`);
        const status = await fetch(`${node.adminEndpoint}/ready`)
          .then((r) => r.status)
          .catch(() => 0);
        if (status === 200) break;
        if (Date.now() > deadline) throw new Error(`node ${node.id} not ready after ${timeoutMs} ms`);
        await delay(200);
      }
    }
  }

  /**
   * The node that reports itself leader (the first node if none does right now), from /metrics:
   * /status would hash the whole state for its digest on every sample.
   */
  async leader(): Promise<SoakNode> {
    for (const node of this.nodes) {
      const text = await fetch(`${node.adminEndpoint}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      if (text.includes('raftq_raft_role{role="leader"} 1')) return node;
    }
    return this.nodes[0] as SoakNode;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(
        (node) =>
          new Promise<void>((resolve) => {
            if (node.process.exitCode !== null || node.process.signalCode !== null) return resolve();
            node.process.once('exit', () => resolve());
            node.process.kill('SIGTERM');
          }),
      ),
    );
  }
}

/** Samples of the metrics a soak run plots, from one node's /metrics text. */
export interface NodeMetricsSample {
  /** Sum of raftq_state_rows over families: live keys of the state. */
  readonly liveRows: number;
  readonly rowsByFamily: Record<string, number>;
  readonly deadVersions: number;
  readonly tombstonedRows: number;
  readonly gcPasses: number;
  /** Garbage-collection steps so far, and the seconds their removals took (raftq_state_gc_step_seconds). */
  readonly gcSteps: number;
  readonly gcStepSeconds: number;
  readonly compactions: number;
  /** Queue index builds the node ran to their end, the rows they scanned and their time (raftq_queue_index_build*). */
  readonly indexBuilds: number;
  readonly indexBuildRows: number;
  readonly indexBuildSeconds: number;
  /** Point reads that went to LevelDB, those that could not teach the cache, and the iterators they opened (raftq_state_engine_*). */
  readonly engineReads: number;
  readonly engineReadsUntaught: number;
  readonly engineReadIterators: number;
}

export async function sampleMetrics(node: SoakNode): Promise<NodeMetricsSample | null> {
  const text = await fetch(`${node.adminEndpoint}/metrics`)
    .then((r) => r.text())
    .catch(() => null);
  if (text === null) return null;
  return parseMetrics(text);
}

export function parseMetrics(text: string): NodeMetricsSample {
  const rowsByFamily: Record<string, number> = {};
  let deadVersions = 0;
  let tombstonedRows = 0;
  let gcPasses = 0;
  let gcSteps = 0;
  let gcStepSeconds = 0;
  let compactions = 0;
  let indexBuilds = 0;
  let indexBuildRows = 0;
  let indexBuildSeconds = 0;
  let engineReads = 0;
  let engineReadsUntaught = 0;
  let engineReadIterators = 0;
  for (const line of text.split('\n')) {
    const family = /^raftq_state_rows\{family="([^"]+)"\} (\S+)$/.exec(line);
    if (family !== null) rowsByFamily[family[1] as string] = Number(family[2]);
    const value = (name: string) => (line.startsWith(`${name} `) ? Number(line.slice(name.length + 1)) : undefined);
    deadVersions = value('raftq_state_versions{kind="dead"}') ?? deadVersions;
    tombstonedRows = value('raftq_reaper_tombstoned_rows') ?? tombstonedRows;
    gcPasses = value('raftq_state_gc_passes_total') ?? gcPasses;
    gcSteps = value('raftq_state_gc_step_seconds_count') ?? gcSteps;
    gcStepSeconds = value('raftq_state_gc_step_seconds_sum') ?? gcStepSeconds;
    compactions = value('raftq_state_compaction_seconds_count') ?? compactions;
    indexBuilds = value('raftq_queue_index_builds_total') ?? indexBuilds;
    indexBuildRows = value('raftq_queue_index_build_rows_total') ?? indexBuildRows;
    indexBuildSeconds = value('raftq_queue_index_build_seconds_total') ?? indexBuildSeconds;
    engineReads = value('raftq_state_engine_reads_total') ?? engineReads;
    engineReadsUntaught = value('raftq_state_engine_reads_untaught_total') ?? engineReadsUntaught;
    engineReadIterators = value('raftq_state_engine_read_iterators_total') ?? engineReadIterators;
  }
  const liveRows = Object.values(rowsByFamily).reduce((sum, n) => sum + n, 0);
  return {
    liveRows,
    rowsByFamily,
    deadVersions,
    tombstonedRows,
    gcPasses,
    gcSteps,
    gcStepSeconds,
    compactions,
    indexBuilds,
    indexBuildRows,
    indexBuildSeconds,
    engineReads,
    engineReadsUntaught,
    engineReadIterators,
  };
}

/**
 * CPU time (user + system, ms) the node's process has used so far, from /proc (Linux): CPU per
 * message is what the node costs, whatever else the machine runs; latency is not.
 */
export function processCpuMs(node: SoakNode): number | null {
  const pid = node.process.pid;
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const clockTicksPerSecond = 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return null;
  }
}

/** Bytes of every file under `dir` (LevelDB's tables and logs). */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    try {
      const stat = statSync(join(dir, name));
      total += stat.isDirectory() ? directoryBytes(join(dir, name)) : stat.size;
    } catch {
      // A table LevelDB removed between the listing and the stat.
    }
  }
  return total;
}
