// `npm run bench:test-node`: how long startTestNode() (raftq/testing) takes to resolve, and its
// stop(), on the memory engine (the default) and on a data directory (a one-voter Raft node on
// LevelDB), started one after another in this process. Also the first request's round trip
// (CreateQueue) on the fresh node. Prints a Markdown table to stdout.
// Options: --runs N (default 50 per kind).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { startTestNode, type TestNodeOptions } from '../src/testing/index.js';

const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : 50;

interface Timings {
  readonly startMs: number[];
  readonly firstRequestMs: number[];
  readonly stopMs: number[];
}

async function measure(options: () => TestNodeOptions, cleanup: () => void): Promise<Timings> {
  const timings: Timings = { startMs: [], firstRequestMs: [], stopMs: [] };
  for (let i = 0; i < runs; i++) {
    const startedAt = performance.now();
    const node = await startTestNode(options());
    const readyAt = performance.now();
    await node.client.send(new CreateQueueCommand({ QueueName: 'bench' }));
    const answeredAt = performance.now();
    await node.stop();
    const stoppedAt = performance.now();
    cleanup();
    timings.startMs.push(readyAt - startedAt);
    timings.firstRequestMs.push(answeredAt - readyAt);
    timings.stopMs.push(stoppedAt - answeredAt);
  }
  return timings;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function row(kind: string, what: string, values: readonly number[]): string {
  const fmt = (ms: number) => ms.toFixed(1);
  return `| ${kind} | ${what} | ${fmt(percentile(values, 50))} | ${fmt(percentile(values, 95))} | ${fmt(Math.max(...values))} |`;
}

const baseDir = mkdtempSync(join(tmpdir(), 'raftq-bench-test-node-'));
let dirNumber = 0;
try {
  // The first node in a process also pays for loading modules: reported apart, not in the runs.
  const coldAt = performance.now();
  const cold = await startTestNode();
  const coldMs = performance.now() - coldAt;
  await cold.stop();
  const memory = await measure(
    () => ({}),
    () => undefined,
  );
  const dataDirs: string[] = [];
  const onDisk = await measure(
    () => {
      const dataDir = join(baseDir, `node-${dirNumber++}`);
      dataDirs.push(dataDir);
      return { dataDir };
    },
    () => rmSync(dataDirs.pop() as string, { recursive: true, force: true }),
  );
  console.log(
    `startTestNode, ${runs} runs per kind, one after another in one process (${cpus().length} cpus, load ${loadavg()[0]?.toFixed(2)})`,
  );
  console.log('');
  console.log('| storage | step | p50 ms | p95 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const [kind, timings] of [
    ['memory', memory],
    ['data directory', onDisk],
  ] as const) {
    console.log(row(kind, 'startTestNode()', timings.startMs));
    console.log(row(kind, 'first request (CreateQueue)', timings.firstRequestMs));
    console.log(row(kind, 'stop()', timings.stopMs));
  }
  console.log('');
  console.log(`first node of the process (module loading included): ${coldMs.toFixed(1)} ms`);
} finally {
  rmSync(baseDir, { recursive: true, force: true });
}
