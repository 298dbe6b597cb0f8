// `npm run bench:sqs-fifo`: FIFO throughput of one raftq node (started with its own CLI, data in a
// temporary directory, Raft log fsynced), in both FIFO modes — per queue (one partition) and high
// throughput (FifoThroughputLimit=perMessageGroupId, DeduplicationScope=messageGroup, partitions)
// — under SendMessage, SendMessageBatch (10) and ReceiveMessage (10) + DeleteMessageBatch. The load
// is raw JSON-protocol HTTP over a keep-alive pool (undici), from this one process. Figures are
// set beside AWS's published FIFO quotas, which are throttles, not capacities: AWS refuses more.
//
// Usage: node dist/bench/sqs-fifo.js [--seconds S] [--concurrency N] [--groups G] [--json FILE]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { sqsJsonRequest } from './load/sqs-json-request.js';
import { freePorts } from './systems/free-ports.js';
import { serveNodeFlags } from '../src/cli/serve-node-flags.js';
import { repoRoot } from './systems/peer-process.js';

interface Options {
  readonly seconds: number;
  readonly concurrency: number;
  readonly groups: number;
  readonly jsonPath: string | undefined;
}

interface PhaseResult {
  readonly mode: 'perQueue' | 'perMessageGroupId';
  readonly action: 'SendMessage' | 'SendMessageBatch' | 'ReceiveMessage+DeleteMessageBatch';
  readonly messagesPerSecond: number;
  readonly callsPerSecond: number;
  readonly errors: number;
  /** AWS's published quota for this mode and action, in messages per second; undefined: region-dependent. */
  readonly awsMessagesPerSecondMax: number | undefined;
}

const readyBoundMs = 60_000;

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: 'string' },
      concurrency: { type: 'string' },
      groups: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const positive = (text: string | undefined, fallback: number, name: string): number => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value <= 0)
      throw new TypeError(`--${name} must be a positive integer, got ${text}`);
    return value;
  };
  return {
    seconds: positive(values.seconds, 10, 'seconds'),
    concurrency: positive(values.concurrency, 16, 'concurrency'),
    groups: positive(values.groups, 100, 'groups'),
    jsonPath: values.json,
  };
}

class SqsJsonClient {
  private readonly pool: Pool;
  errors = 0;

  constructor(
    readonly endpoint: string,
    connections: number,
  ) {
    this.pool = new Pool(endpoint, { connections, pipelining: 1 });
  }

  async call(action: string, body: object): Promise<Record<string, unknown> | undefined> {
    const { statusCode, text } = await sqsJsonRequest(this.pool, action, body);
    if (statusCode !== 200) {
      this.errors++;
      return undefined;
    }
    return JSON.parse(text) as Record<string, unknown>;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

async function startNode(): Promise<{ endpoint: string; child: ChildProcess; dataDir: string }> {
  const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
  const dataDir = mkdtempSync(join(tmpdir(), 'raftq-bench-fifo-'));
  const child = spawn(
    process.execPath,
    [
      ...serveNodeFlags,
      join(repoRoot, 'dist/src/cli/main.js'),
      'serve',
      '--data-dir',
      dataDir,
      '--sqs-listen',
      `127.0.0.1:${sqsPort}`,
      '--admin-listen',
      `127.0.0.1:${adminPort}`,
      '--raft-listen',
      `127.0.0.1:${raftPort}`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const deadlineMs = Date.now() + readyBoundMs;
  while (Date.now() < deadlineMs) {
    if (child.exitCode !== null) throw new Error(`raftq serve exited with ${child.exitCode}`);
    const isReady = await fetch(`http://127.0.0.1:${adminPort}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (isReady) return { endpoint: `http://127.0.0.1:${sqsPort}`, child, dataDir };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`raftq serve was not ready within ${readyBoundMs} ms`);
}

/** Runs `work` on `concurrency` lanes until `seconds` pass; returns the messages and calls counted. */
async function runLanes(
  seconds: number,
  concurrency: number,
  work: (lane: number) => Promise<{ messages: number; calls: number; isDone: boolean }>,
) {
  const endMs = performance.now() + seconds * 1000;
  let messages = 0;
  let calls = 0;
  const startMs = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < endMs) {
        const step = await work(lane);
        messages += step.messages;
        calls += step.calls;
        if (step.isDone) return;
      }
    }),
  );
  const elapsedSeconds = (performance.now() - startMs) / 1000;
  return { messagesPerSecond: messages / elapsedSeconds, callsPerSecond: calls / elapsedSeconds };
}

async function benchMode(client: SqsJsonClient, mode: PhaseResult['mode'], options: Options): Promise<PhaseResult[]> {
  const queueName = `bench-${mode}-${Date.now().toString(36)}.fifo`;
  const attributes: Record<string, string> = { FifoQueue: 'true', VisibilityTimeout: '60' };
  if (mode === 'perMessageGroupId')
    Object.assign(attributes, { FifoThroughputLimit: 'perMessageGroupId', DeduplicationScope: 'messageGroup' });
  const created = await client.call('CreateQueue', { QueueName: queueName, Attributes: attributes });
  const queueUrl = created?.['QueueUrl'] as string;
  let counter = 0;
  const nextEntry = () => {
    const n = counter++;
    return {
      MessageBody: `fifo bench message ${n}`,
      MessageGroupId: `g${n % options.groups}`,
      MessageDeduplicationId: `d${n}`,
    };
  };
  const perQueue = mode === 'perQueue';
  const results: PhaseResult[] = [];
  const errorsBefore = () => client.errors;

  let errors = errorsBefore();
  const single = await runLanes(options.seconds, options.concurrency, async () => {
    await client.call('SendMessage', { QueueUrl: queueUrl, ...nextEntry() });
    return { messages: 1, calls: 1, isDone: false };
  });
  results.push({
    mode,
    action: 'SendMessage',
    ...single,
    errors: client.errors - errors,
    awsMessagesPerSecondMax: perQueue ? 300 : undefined,
  });

  errors = errorsBefore();
  const batch = await runLanes(options.seconds, options.concurrency, async () => {
    const entries = Array.from({ length: 10 }, (_, i) => ({ Id: `e${i}`, ...nextEntry() }));
    const out = await client.call('SendMessageBatch', { QueueUrl: queueUrl, Entries: entries });
    return { messages: (out?.['Successful'] as unknown[] | undefined)?.length ?? 0, calls: 1, isDone: false };
  });
  results.push({
    mode,
    action: 'SendMessageBatch',
    ...batch,
    errors: client.errors - errors,
    awsMessagesPerSecondMax: perQueue ? 3_000 : undefined,
  });

  errors = errorsBefore();
  const consume = await runLanes(options.seconds, options.concurrency, async () => {
    const out = await client.call('ReceiveMessage', {
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
    });
    const messages = (out?.['Messages'] as Array<{ ReceiptHandle: string }> | undefined) ?? [];
    if (messages.length === 0) return { messages: 0, calls: 1, isDone: true };
    await client.call('DeleteMessageBatch', {
      QueueUrl: queueUrl,
      Entries: messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
    });
    return { messages: messages.length, calls: 2, isDone: false };
  });
  results.push({
    mode,
    action: 'ReceiveMessage+DeleteMessageBatch',
    ...consume,
    errors: client.errors - errors,
    awsMessagesPerSecondMax: perQueue ? 3_000 : undefined,
  });
  return results;
}

function formatTable(results: readonly PhaseResult[], options: Options): string {
  const lines = [
    `| mode | action | messages/s | API calls/s | errors | AWS quota (messages/s) |`,
    `|---|---|---:|---:|---:|---|`,
    ...results.map(
      (r) =>
        `| ${r.mode} | ${r.action} | ${Math.round(r.messagesPerSecond)} | ${Math.round(r.callsPerSecond)} | ${r.errors} | ${r.awsMessagesPerSecondMax === undefined ? 'region-dependent, far higher' : r.awsMessagesPerSecondMax.toLocaleString('en-US')} |`,
    ),
  ];
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `${lines.join('\n')}\n\n${options.seconds} s per phase, ${options.concurrency} concurrent requests, ${options.groups} groups; load average at the end: ${load}`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const node = await startNode();
  const client = new SqsJsonClient(node.endpoint, options.concurrency);
  try {
    const results = [
      ...(await benchMode(client, 'perQueue', options)),
      ...(await benchMode(client, 'perMessageGroupId', options)),
    ];
    process.stdout.write(`${formatTable(results, options)}\n`);
    if (options.jsonPath !== undefined)
      writeFileSync(options.jsonPath, `${JSON.stringify({ options, results }, null, 2)}\n`);
  } finally {
    await client.close();
    node.child.kill('SIGTERM');
    await new Promise((resolve) => node.child.once('exit', resolve));
    rmSync(node.dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:sqs-fifo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
