/**
 * `raftq cluster up|down`: a local cluster on this machine for development. Node i (1-based) is
 * n<i>, with data in BASE/n<i>, its log in BASE/n<i>.log, and ports 9324+10(i-1) (SQS), +1
 * (admin), +2 (Raft). `up` returns once every node answers /ready; `down` stops them with SIGTERM
 * (SIGKILL after a bound). The pids and ports are kept in BASE/cluster.json. Nodes use the
 * cluster secret of RAFTQ_CLUSTER_SECRET when it is set.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { delay } from '../base/delay.js';
import { adminCall } from './admin-client.js';
import { numberFlag, parseFlags, stringFlag, UsageError, booleanFlag, type FlagSpec } from './flags.js';
import { serveNodeFlags } from './serve-node-flags.js';

export const clusterFlags: readonly FlagSpec[] = [
  { name: 'nodes', kind: 'number', description: 'How many nodes', defaultText: '3' },
  {
    name: 'base-dir',
    kind: 'string',
    description: 'Where node data, logs and cluster.json live',
    defaultText: './cluster',
  },
  {
    name: 'base-port',
    kind: 'number',
    description: 'SQS port of node 1; node i uses base+10(i-1), +1 admin, +2 Raft',
    defaultText: '9324',
  },
  {
    name: 'ready-timeout-ms',
    kind: 'number',
    description: 'How long `up` waits for every node to be ready',
    defaultText: '30000',
  },
  { name: 'debug-endpoints', kind: 'boolean', description: 'Start the nodes with --debug-endpoints' },
];

/** One node of a local cluster as BASE/cluster.json records it. */
export interface ClusterNodeRecord {
  readonly id: string;
  readonly pid: number;
  readonly sqs: string;
  readonly admin: string;
  readonly raft: string;
  readonly dataDir: string;
  readonly logFile: string;
}

/** BASE/cluster.json: the nodes `up` started (empty after `down`, which keeps the data). */
export interface ClusterRecord {
  readonly nodes: ClusterNodeRecord[];
}

export function readClusterRecord(recordPath: string): ClusterRecord {
  return JSON.parse(readFileSync(recordPath, 'utf8')) as ClusterRecord;
}

const mainScript = fileURLToPath(new URL('./main.js', import.meta.url));

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function clusterCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [verb, ...rest] = argv;
  const { values, positionals } = parseFlags(rest, clusterFlags, env, { allowConfigFile: false });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const baseDir = resolve(stringFlag(values, 'base-dir') ?? './cluster');
  const recordPath = join(baseDir, 'cluster.json');
  if (verb === 'up') {
    const count = numberFlag(values, 'nodes') ?? 3;
    if (!Number.isInteger(count) || count < 1 || count > 9) throw new UsageError('--nodes must be between 1 and 9');
    if (existsSync(recordPath)) {
      const previous = readClusterRecord(recordPath);
      if (previous.nodes.some((node) => isProcessAlive(node.pid)))
        throw new UsageError(
          `a cluster from ${baseDir} is still running: run \`raftq cluster down --base-dir ${baseDir}\` first`,
        );
    }
    await clusterUp({
      count,
      baseDir,
      basePort: numberFlag(values, 'base-port') ?? 9324,
      readyTimeoutMs: numberFlag(values, 'ready-timeout-ms') ?? 30_000,
      isDebugEnabled: booleanFlag(values, 'debug-endpoints'),
      env,
    });
    return;
  }
  if (verb === 'down') {
    await clusterDown(recordPath);
    return;
  }
  throw new UsageError('usage: raftq cluster up [--nodes 3] [--base-dir DIR] | raftq cluster down [--base-dir DIR]');
}

async function clusterUp(options: {
  count: number;
  baseDir: string;
  basePort: number;
  readyTimeoutMs: number;
  isDebugEnabled: boolean;
  env: NodeJS.ProcessEnv;
}): Promise<void> {
  mkdirSync(options.baseDir, { recursive: true });
  const recordPath = join(options.baseDir, 'cluster.json');
  // A local cluster listens on loopback only; a secret is used when RAFTQ_CLUSTER_SECRET gives one
  // (then `raftq members …` needs it too).
  const clusterSecret = options.env['RAFTQ_CLUSTER_SECRET'] ?? '';
  const layout = Array.from({ length: options.count }, (_, i) => {
    const port = options.basePort + 10 * i;
    return { id: `n${i + 1}`, sqs: `127.0.0.1:${port}`, admin: `127.0.0.1:${port + 1}`, raft: `127.0.0.1:${port + 2}` };
  });
  const peers = layout.map((node) => `${node.id}=${node.raft}`).join(',');
  const nodes: ClusterNodeRecord[] = layout.map((node) => {
    const dataDir = join(options.baseDir, node.id);
    const logFile = join(options.baseDir, `${node.id}.log`);
    const out = openSync(logFile, 'a');
    const args = [
      ...serveNodeFlags,
      mainScript,
      'serve',
      '--id',
      node.id,
      '--data-dir',
      dataDir,
      '--sqs-listen',
      node.sqs,
      '--admin-listen',
      node.admin,
      '--raft-listen',
      node.raft,
      '--peers',
      peers,
    ];
    if (options.isDebugEnabled) args.push('--debug-endpoints');
    // The secret travels in the environment, not on the command line where `ps` shows it.
    const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env: options.env });
    child.unref();
    return { ...node, pid: child.pid ?? -1, dataDir, logFile };
  });
  writeFileSync(recordPath, `${JSON.stringify({ nodes } satisfies ClusterRecord, null, 2)}\n`);
  if (clusterSecret === '')
    process.stderr.write(
      'note: no RAFTQ_CLUSTER_SECRET, so calls between these nodes are not authenticated (fine on loopback)\n',
    );
  const deadlineMs = Date.now() + options.readyTimeoutMs;
  for (const node of nodes) {
    for (;;) {
      if (!isProcessAlive(node.pid)) throw new Error(`node ${node.id} exited during start-up; see ${node.logFile}`);
      const isReady = await adminCall(node.admin, 'GET', '/ready', { timeoutMs: 2_000 }).then(
        () => true,
        () => false,
      );
      if (isReady) break;
      if (Date.now() > deadlineMs)
        throw new Error(`node ${node.id} was not ready within ${options.readyTimeoutMs} ms; see ${node.logFile}`);
      await delay(200);
    }
  }
  for (const node of nodes)
    process.stdout.write(
      `${node.id}  sqs http://${node.sqs}  admin http://${node.admin}  raft ${node.raft}  pid ${node.pid}  log ${node.logFile}\n`,
    );
  process.stdout.write(
    `cluster of ${nodes.length} ready; stop it with: raftq cluster down --base-dir ${options.baseDir}\n`,
  );
}

async function clusterDown(recordPath: string): Promise<void> {
  if (!existsSync(recordPath)) throw new UsageError(`no cluster recorded at ${recordPath}`);
  const record = readClusterRecord(recordPath);
  for (const node of record.nodes) if (isProcessAlive(node.pid)) process.kill(node.pid, 'SIGTERM');
  const deadlineMs = Date.now() + 15_000;
  while (record.nodes.some((node) => isProcessAlive(node.pid)) && Date.now() < deadlineMs) await delay(100);
  for (const node of record.nodes) {
    if (isProcessAlive(node.pid)) {
      process.kill(node.pid, 'SIGKILL');
      process.stdout.write(`${node.id} did not stop in time: killed\n`);
    } else {
      process.stdout.write(`${node.id} stopped\n`);
    }
  }
  // Data stays for the next `up`; only the record of running processes goes.
  writeFileSync(recordPath, `${JSON.stringify({ nodes: [] }, null, 2)}\n`);
}
