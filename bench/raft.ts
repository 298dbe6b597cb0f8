/**
 * `npm run bench:raft`: a three-node raftq cluster of real processes on loopback, driven with
 * concurrent proposals of small transactions from inside the nodes (POST /debug/load, so no HTTP
 * per transaction), at several concurrencies: on the leader only, then spread over all three
 * nodes (followers forward to the leader). Prints, per phase, commits/s, p50/p99 commit latency,
 * fsyncs/s (all nodes, and the leader's), transactions per Raft entry (group commit at work) and
 * each node's CPU seconds (all threads) per 1000 commits, the leader's first: what replication
 * costs a follower apart from any SQS front.
 *
 * Options (flags or env): --duration-ms N (per phase, default 5000), --concurrency 1,16,64,256,
 * --value-bytes 100, --keep (leave the data dir). RAFTQ_BENCH_NODE_ARGS passes node.js flags to
 * the nodes (e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveNodeFlags } from '../src/cli/serve-node-flags.js';

interface Options {
  durationMs: number;
  concurrencies: number[];
  valueBytes: number;
  isKept: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string, fallback: string): string => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0
      ? (argv[i + 1] ?? fallback)
      : (process.env[`RAFTQ_BENCH_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback);
  };
  return {
    durationMs: Number(value('duration-ms', '5000')),
    concurrencies: value('concurrency', '1,16,64,256').split(',').map(Number),
    valueBytes: Number(value('value-bytes', '100')),
    isKept: argv.includes('--keep'),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      server.close(() => resolve(address.port));
    });
  });
}

interface BenchNode {
  readonly id: string;
  readonly admin: string;
  readonly process: ChildProcess;
}

async function adminJson(node: BenchNode, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`http://${node.admin}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(180_000),
  });
  if (!response.ok) throw new Error(`${method} ${path} on ${node.id}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The counters a phase compares, read from one /metrics answer per node so they are of one moment. */
interface PhaseCounters {
  readonly fsyncs: number;
  readonly cpuSeconds: number;
  readonly proposedEntries: number;
}

async function phaseCounters(node: BenchNode): Promise<PhaseCounters> {
  const response = await fetch(`http://${node.admin}/metrics`);
  const lines = (await response.text()).split('\n');
  const value = (name: string): number => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    return line === undefined ? 0 : Number(line.split(' ')[1]);
  };
  return {
    fsyncs: value('raftq_fsyncs_total'),
    cpuSeconds: value('raftq_process_cpu_seconds_total'),
    proposedEntries: value('raftq_proposed_entries_total'),
  };
}

async function startCluster(dataDir: string): Promise<BenchNode[]> {
  const mainScript = new URL('../src/cli/main.js', import.meta.url).pathname;
  const ids = ['n1', 'n2', 'n3'];
  const ports = new Map<string, { sqs: number; admin: number; raft: number }>();
  for (const id of ids) ports.set(id, { sqs: await freePort(), admin: await freePort(), raft: await freePort() });
  const peers = ids.map((id) => `${id}=127.0.0.1:${ports.get(id)?.raft}`).join(',');
  // Extra node.js flags for the nodes, e.g. RAFTQ_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env['RAFTQ_BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
  const nodes = ids.map((id) => {
    const p = ports.get(id) as { sqs: number; admin: number; raft: number };
    const out = openSync(join(dataDir, `${id}.log`), 'a');
    const child = spawn(
      process.execPath,
      [
        ...serveNodeFlags,
        ...nodeArgs,
        mainScript,
        'serve',
        '--id',
        id,
        '--data-dir',
        join(dataDir, id),
        '--sqs-listen',
        `127.0.0.1:${p.sqs}`,
        '--admin-listen',
        `127.0.0.1:${p.admin}`,
        '--raft-listen',
        `127.0.0.1:${p.raft}`,
        '--peers',
        peers,
        '--debug-endpoints',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', out, out] },
    );
    return { id, admin: `127.0.0.1:${p.admin}`, process: child };
  });
  const deadline = Date.now() + 30_000;
  for (const node of nodes) {
    while (
      (await fetch(`http://${node.admin}/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) throw new Error(`${node.id} not ready; see ${join(dataDir, `${node.id}.log`)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return nodes;
}

interface LoadResult {
  commits: number;
  elapsedMs: number;
  errors: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

async function phase(
  nodes: BenchNode[],
  drivers: BenchNode[],
  leader: BenchNode,
  concurrency: number,
  options: Options,
): Promise<string> {
  const leaderIndex = nodes.indexOf(leader);
  const before = await Promise.all(nodes.map(phaseCounters));
  const perDriver = Math.max(1, Math.round(concurrency / drivers.length));
  const started = performance.now();
  const results = (await Promise.all(
    drivers.map((node) =>
      adminJson(node, 'POST', '/debug/load', {
        durationMs: options.durationMs,
        concurrency: perDriver,
        valueBytes: options.valueBytes,
      }),
    ),
  )) as LoadResult[];
  const seconds = (performance.now() - started) / 1000;
  const after = await Promise.all(nodes.map(phaseCounters));
  const fsyncsBefore = before.map((c) => c.fsyncs);
  const fsyncsAfter = after.map((c) => c.fsyncs);
  const cpuBefore = before.map((c) => c.cpuSeconds);
  const cpuAfter = after.map((c) => c.cpuSeconds);
  const entries = (after[leaderIndex]?.proposedEntries ?? 0) - (before[leaderIndex]?.proposedEntries ?? 0);
  const commits = results.reduce((sum, r) => sum + r.commits, 0);
  const fsyncs = fsyncsAfter.reduce((sum, v, i) => sum + v - (fsyncsBefore[i] ?? 0), 0);
  const leaderFsyncs = (fsyncsAfter[leaderIndex] ?? 0) - (fsyncsBefore[leaderIndex] ?? 0);
  // Latency percentiles of the phase: the worst driver's (drivers run the same load).
  const p50 = Math.max(...results.map((r) => r.p50Ms));
  const p99 = Math.max(...results.map((r) => r.p99Ms));
  // CPU seconds per 1000 commits, leader first, then the followers in id order.
  const cpuPer1k = nodes
    .map((node, i) => ({ node, seconds: (cpuAfter[i] ?? 0) - (cpuBefore[i] ?? 0) }))
    .sort((a, b) => (a.node === leader ? -1 : b.node === leader ? 1 : 0))
    .map(({ seconds }) => (commits > 0 ? (seconds / commits) * 1000 : 0).toFixed(3))
    .join(' ');
  const errors = results.flatMap((r) => Object.entries(r.errors).map(([k, v]) => `${k}:${v}`)).join(' ');
  return [
    `${drivers.length === 1 ? 'leader' : 'all-3 '}`.padEnd(7),
    `${concurrency}`.padStart(5),
    `${Math.round(commits / seconds)}`.padStart(9),
    p50.toFixed(2).padStart(8),
    p99.toFixed(2).padStart(8),
    `${Math.round(fsyncs / seconds)}`.padStart(9),
    `${Math.round(leaderFsyncs / seconds)}`.padStart(9),
    (entries > 0 ? commits / entries : 0).toFixed(1).padStart(8),
    `  ${cpuPer1k}`,
    errors === '' ? '' : `  errors ${errors}`,
  ].join(' ');
}

/** SIGTERM (the node drains and exits), SIGKILL if it has not exited after 10 s. */
async function stopNode(node: BenchNode): Promise<void> {
  if (node.process.exitCode !== null || node.process.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => node.process.once('exit', () => resolve()));
  node.process.kill('SIGTERM');
  const timer = setTimeout(() => node.process.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), 'raftq-bench-raft-'));
  console.log(
    `raft bench: 3 nodes, data in ${dataDir}, ${options.durationMs} ms per phase, ${options.valueBytes}-byte values, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const nodes = await startCluster(dataDir);
  try {
    const statuses = await Promise.all(nodes.map((n) => adminJson(n, 'GET', '/status')));
    const leader = nodes[statuses.findIndex((s: { role: string }) => s.role === 'leader')];
    if (leader === undefined) throw new Error('no leader');
    console.log(`leader ${leader.id}; warming up`);
    await adminJson(leader, 'POST', '/debug/load', {
      durationMs: 1_000,
      concurrency: 16,
      valueBytes: options.valueBytes,
    });
    console.log('where   conc.  commits/s  p50 ms   p99 ms  fsyncs/s  leader/s  txn/entry  cpu s/1k leader, followers');
    for (const drivers of [[leader], nodes]) {
      for (const concurrency of options.concurrencies)
        console.log(await phase(nodes, drivers, leader, concurrency, options));
    }
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(nodes.map((node) => stopNode(node)));
    if (!options.isKept) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
