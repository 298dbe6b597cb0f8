/**
 * `npm run bench:backlog`: consuming from a large backlog, over real `raftq serve` processes on
 * loopback. For each backlog size it starts a fresh cluster, pre-fills one standard queue
 * (progress on stderr), then
 * - measures the consume rate of `--consume` messages (ReceiveMessage(10) + DeleteMessageBatch
 *   from `--consumers` loops on the leader) and the nodes' CPU per 1000 consumed, and whether the
 *   leader's queue index build (served from the queue's head meanwhile) has ended, in how long; or, with
 * - `--kill-leader` (needs 3 nodes): SIGKILLs the leader and times how long until a receive sent
 *   to the survivors returns a message (the new leader elected, the head of its queue index in),
 *   then waits for the new leader's whole index build to end and prints its rows and time; or, with
 * - `--delete-queue`: deletes the filled queue and times the reaper's clearing of its rows (and
 *   garbage collection's removal of what that left), while a bystander queue is produced to and
 *   consumed from at a steady pace, whose latency shows what the clearing costs everyone else.
 *
 *   npm run bench:backlog -- [--backlog 10000,1000000] [--nodes 1|3] [--kill-leader | --delete-queue]
 *     [--consume 8000] [--rounds 1] [--consumers 32] [--body-bytes 256] [--fill bulk|sqs] [--fill-in-flight 64] [--keep]
 *
 * `--fill sqs` sends SendMessageBatch(10) from `--fill-in-flight` requests at once: a million
 * messages take many minutes on a busy machine. `--fill bulk` (the default) builds the rows a send
 * writes with the queue layer's own MessageStore (bench/backlog/bulk-fill.ts) and commits a few
 * hundred messages per transaction through the leader's POST /debug/txn: the same rows, replicated
 * and applied like any transaction, without the per-request cost of the SQS gateway.
 *
 * RAFTQ_BENCH_NODE_ARGS passes node.js flags to the nodes (e.g. "--cpu-prof --cpu-prof-dir=DIR", or
 * "--import DIST/bench/profile/profile-on-signal.js" to profile one round: see docs/BENCHMARKS.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { sqsJsonRequest } from './load/sqs-json-request.js';
import { bulkFill } from './backlog/bulk-fill.js';
import {
  processCpuMs,
  sampleMetrics,
  SoakCluster,
  soakClusterSecret,
  type NodeMetricsSample,
  type SoakNode,
} from './soak/soak-cluster.js';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '10000,1000000' },
    nodes: { type: 'string', default: '1' },
    'kill-leader': { type: 'boolean', default: false },
    'delete-queue': { type: 'boolean', default: false },
    consume: { type: 'string', default: '8000' },
    /** Consume windows of --consume messages, one after the other: the first includes a new index's build. */
    rounds: { type: 'string', default: '1' },
    consumers: { type: 'string', default: '32' },
    'body-bytes': { type: 'string', default: '256' },
    fill: { type: 'string', default: 'bulk' },
    'fill-in-flight': { type: 'string', default: '64' },
    keep: { type: 'boolean', default: false },
  },
});
const backlogs = values.backlog.split(',').map(Number);
const nodeCount = Number(values.nodes);
const isKillingLeader = values['kill-leader'] === true;
const isDeletingQueue = values['delete-queue'] === true;
const consumeCount = Number(values.consume);
const roundCount = Number(values.rounds);
const consumerCount = Number(values.consumers);
const body = 'x'.repeat(Number(values['body-bytes']));
const fillInFlight = Number(values['fill-in-flight']);
if (isKillingLeader && nodeCount < 3) throw new Error('--kill-leader needs --nodes 3');
if (isKillingLeader && isDeletingQueue) throw new Error('--kill-leader and --delete-queue are separate runs');

/** A JSON-protocol SQS call that must succeed. */
async function call<T>(pool: Pool, action: string, request: object): Promise<T> {
  const { statusCode, text } = await sqsJsonRequest(pool, action, request);
  if (statusCode !== 200) throw new Error(`${action}: HTTP ${statusCode}: ${text.slice(0, 200)}`);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

interface ReceivedMessage {
  readonly ReceiptHandle: string;
}

/** SendMessageBatch(10) from `fillInFlight` loops until `total` messages are in; a failed batch is sent again. */
async function fill(pool: Pool, queueUrl: string, total: number): Promise<number> {
  const startedMs = performance.now();
  let next = 0;
  let sent = 0;
  let retries = 0;
  const progress = setInterval(() => {
    const seconds = (performance.now() - startedMs) / 1000;
    const rate = sent / Math.max(seconds, 0.001);
    process.stderr.write(
      `\r  filled ${sent.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.round(rate)} msgs/s, ETA ${Math.round((total - sent) / Math.max(rate, 1))} s, retries ${retries})   `,
    );
  }, 1_000);
  try {
    await Promise.all(
      Array.from({ length: fillInFlight }, async () => {
        for (;;) {
          const first = next;
          if (first >= total) return;
          const count = Math.min(10, total - first);
          next += count;
          const entries = Array.from({ length: count }, (_, k) => ({ Id: `e${k}`, MessageBody: body }));
          for (;;) {
            try {
              const answer = await call<{ Successful?: unknown[]; Failed?: unknown[] }>(pool, 'SendMessageBatch', {
                QueueUrl: queueUrl,
                Entries: entries,
              });
              if ((answer.Successful?.length ?? 0) === count) break;
            } catch {
              // Retried below: a busy node may time a request out.
            }
            retries++;
            await delay(100);
          }
          sent += count;
        }
      }),
    );
  } finally {
    clearInterval(progress);
    process.stderr.write('\n');
  }
  return (performance.now() - startedMs) / 1000;
}

/** `consumerCount` loops of ReceiveMessage(10) + DeleteMessageBatch until `target` messages are deleted; per-receive latencies in ms. */
async function consume(
  pool: Pool,
  queueUrl: string,
  target: number,
): Promise<{ seconds: number; latenciesMs: number[]; errors: number }> {
  let consumed = 0;
  let errors = 0;
  const latenciesMs: number[] = [];
  const startedMs = performance.now();
  await Promise.all(
    Array.from({ length: consumerCount }, async () => {
      while (consumed < target) {
        const sentMs = performance.now();
        try {
          const answer = await call<{ Messages?: ReceivedMessage[] }>(pool, 'ReceiveMessage', {
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            VisibilityTimeout: 60,
          });
          latenciesMs.push(performance.now() - sentMs);
          const messages = answer.Messages ?? [];
          if (messages.length === 0) continue;
          await call(pool, 'DeleteMessageBatch', {
            QueueUrl: queueUrl,
            Entries: messages.map((m, k) => ({ Id: `d${k}`, ReceiptHandle: m.ReceiptHandle })),
          });
          consumed += messages.length;
        } catch {
          // An overloaded node answers 503 (a receive that did not finish in time): counted, and sent again.
          errors++;
          await delay(100);
        }
      }
    }),
  );
  return { seconds: (performance.now() - startedMs) / 1000, latenciesMs, errors };
}

/**
 * After the leader is killed: one receive at a time to each survivor (a follower forwards it to
 * the leader), sent again after every error or empty answer, until one returns a message.
 */
async function timeUntilReceive(
  survivors: readonly SoakNode[],
  queueUrlOf: (node: SoakNode) => string,
  killedAtMs: number,
): Promise<{ ms: number; node: string; attempts: number }> {
  let attempts = 0;
  let winner: { ms: number; node: string } | undefined;
  await Promise.all(
    survivors.map(async (node) => {
      const pool = new Pool(node.sqsEndpoint, { connections: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
      try {
        while (winner === undefined) {
          attempts++;
          try {
            const answer = await call<{ Messages?: ReceivedMessage[] }>(pool, 'ReceiveMessage', {
              QueueUrl: queueUrlOf(node),
              MaxNumberOfMessages: 1,
              WaitTimeSeconds: 0,
              VisibilityTimeout: 60,
            });
            if ((answer.Messages?.length ?? 0) > 0) {
              winner ??= { ms: performance.now() - killedAtMs, node: node.id };
              return;
            }
          } catch {
            // No leader yet, or the request reached a node that lost it: try again.
          }
          await delay(20);
        }
      } finally {
        await pool.close();
      }
    }),
  );
  if (winner === undefined) throw new Error('no receive succeeded');
  return { ...winner, attempts };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The leader's garbage-collection steps over a round: how many, and how long each removal took, waiting for the apply lock included. */
function gcStepsText(before: NodeMetricsSample | null, after: NodeMetricsSample | null): string {
  if (before === null || after === null) return 'gc steps unknown';
  const steps = after.gcSteps - before.gcSteps;
  const tookMs = (after.gcStepSeconds - before.gcStepSeconds) * 1000;
  return `leader gc ${steps} steps' removals took ${tookMs.toFixed(0)} ms (mean ${(steps > 0 ? tookMs / steps : 0).toFixed(1)} ms, waiting for the apply lock included)`;
}

/** The leader's point reads that went to LevelDB over a round, per consumed message and per iterator (a native round trip each). */
function engineReadsText(before: NodeMetricsSample | null, after: NodeMetricsSample | null, consumed: number): string {
  if (before === null || after === null) return 'engine reads unknown';
  const reads = after.engineReads - before.engineReads;
  const untaught = after.engineReadsUntaught - before.engineReadsUntaught;
  const iterators = after.engineReadIterators - before.engineReadIterators;
  return `leader engine reads ${(reads / consumed).toFixed(2)} per message (${untaught.toLocaleString('en')} untaught), ${(iterators > 0 ? reads / iterators : 0).toFixed(1)} keys per iterator`;
}

/** How long the builds of the node's queue indexes took, once one ended (the queue's receives are served from its head before). */
function indexBuildText(sample: NodeMetricsSample | null): string {
  if (sample === null) return 'index build unknown (no metrics)';
  if (sample.indexBuilds === 0) return 'index still building';
  return `index built: ${sample.indexBuildRows.toLocaleString('en')} rows in ${sample.indexBuildSeconds.toFixed(1)} s`;
}

/** The node's metrics once it finished a queue index build (polled each 250 ms, for at most indexBuildWaitMsMax). */
async function finishedIndexBuild(node: SoakNode): Promise<NodeMetricsSample | null> {
  const deadlineMs = performance.now() + indexBuildWaitMsMax;
  for (;;) {
    const sample = await sampleMetrics(node);
    if ((sample !== null && sample.indexBuilds > 0) || performance.now() > deadlineMs) return sample;
    await delay(250);
  }
}

/** The longest the leader-kill run waits for the new leader's index build to end. */
const indexBuildWaitMsMax = 300_000;

function cpuOf(nodes: readonly SoakNode[]): number {
  return nodes.reduce((sum, node) => sum + (processCpuMs(node) ?? 0), 0);
}

async function runBacklog(backlog: number): Promise<void> {
  const baseDir = mkdtempSync(join(tmpdir(), 'raftq-bench-backlog-'));
  const nodeFlags = (process.env['RAFTQ_BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
  const cluster = await SoakCluster.start({
    nodeCount,
    baseDir,
    extraArgs: ['--debug-endpoints'],
    nodeFlags,
  });
  try {
    const leader = await cluster.leader();
    const pool = new Pool(leader.sqsEndpoint, { connections: Math.max(fillInFlight, consumerCount) });
    const { QueueUrl: queueUrl } = await call<{ QueueUrl: string }>(pool, 'CreateQueue', {
      QueueName: 'backlog',
      Attributes: {},
    });
    console.log(
      `backlog ${backlog.toLocaleString('en')}: ${nodeCount} node(s), leader ${leader.id}, ${body.length}-byte bodies, data in ${baseDir}`,
    );
    const metricsBeforeFill = await sampleMetrics(leader);
    const fillSeconds =
      values.fill === 'sqs'
        ? await fill(pool, queueUrl, backlog)
        : await bulkFill({
            adminEndpoint: leader.adminEndpoint,
            clusterSecret: soakClusterSecret,
            queueName: 'backlog',
            total: backlog,
            body,
            inFlight: 4,
          });
    console.log(
      `  filled in ${fillSeconds.toFixed(1)} s (${Math.round(backlog / fillSeconds)} msgs/s), ${gcStepsText(metricsBeforeFill, await sampleMetrics(leader))}, load average ${loadavg()[0]?.toFixed(2)}`,
    );
    if (isKillingLeader) {
      const survivors = cluster.nodes.filter((node) => node !== leader);
      await pool.close();
      const killedAtMs = performance.now();
      leader.process.kill('SIGKILL');
      const { ms, node, attempts } = await timeUntilReceive(
        survivors,
        (n) => queueUrl.replace(leader.sqsEndpoint, n.sqsEndpoint),
        killedAtMs,
      );
      const newLeader = await cluster.leader();
      console.log(
        `  leader ${leader.id} killed: first message received ${ms.toFixed(0)} ms later (through ${node}; new leader ${newLeader.id}; ${attempts} attempts), load average ${loadavg()[0]?.toFixed(2)}`,
      );
      console.log(`  new leader ${newLeader.id}: ${indexBuildText(await finishedIndexBuild(newLeader))}`);
      return;
    }
    if (isDeletingQueue) {
      await pool.close();
      await timeQueueDeletion(cluster.nodes, leader, queueUrl);
      return;
    }
    // The node's first receive of the queue builds its queue index: timed apart from the rate.
    const firstStartedMs = performance.now();
    const firstAnswer = await sqsJsonRequest(pool, 'ReceiveMessage', {
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 1,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 0,
    });
    console.log(
      `  first receive (builds the queue index): ${(performance.now() - firstStartedMs).toFixed(0)} ms, HTTP ${firstAnswer.statusCode}`,
    );
    let remaining = backlog;
    for (let round = 1; round <= roundCount; round++) {
      // A round waits until it has consumed its target: one the backlog cannot fill would never end.
      const target = Math.min(consumeCount, remaining);
      if (target < consumeCount && round > 1) {
        console.log(
          `  round ${round}: skipped, ${remaining.toLocaleString('en')} left of the backlog (fewer than --consume)`,
        );
        break;
      }
      remaining -= target;
      // The scrape before the round's CPU reading, timed on its own: a /metrics answer counts every
      // queue's rows (up to approximateCountRowsMax), which is not the round's work.
      const scrapeCpuBeforeMs = cpuOf(cluster.nodes);
      const scrapeStartedMs = performance.now();
      const metricsBefore = await sampleMetrics(leader);
      const scrapeMs = performance.now() - scrapeStartedMs;
      const cpuBeforeMs = cpuOf(cluster.nodes);
      const { seconds, latenciesMs, errors } = await consume(pool, queueUrl, target);
      const cpuMs = cpuOf(cluster.nodes) - cpuBeforeMs;
      const metricsAfter = await sampleMetrics(leader);
      latenciesMs.sort((a, b) => a - b);
      console.log(
        `  round ${round}: consumed ${target.toLocaleString('en')}: ${Math.round(target / seconds)} msgs/s, receive p50 ${percentile(latenciesMs, 50).toFixed(0)} ms p99 ${percentile(latenciesMs, 99).toFixed(0)} ms, ` +
          `nodes' CPU ${((cpuMs / 1000 / target) * 1000).toFixed(3)} s per 1000, ${errors} failed calls, ${gcStepsText(metricsBefore, metricsAfter)}, ${engineReadsText(metricsBefore, metricsAfter, target)}, ${indexBuildText(metricsAfter)}, ` +
          `before it a /metrics scrape of ${scrapeMs.toFixed(0)} ms and ${(cpuBeforeMs - scrapeCpuBeforeMs).toFixed(0)} ms of the nodes' CPU (not counted), load average ${loadavg()[0]?.toFixed(2)}`,
      );
    }
    await pool.close();
  } finally {
    await cluster.stop();
    if (values.keep !== true) rmSync(baseDir, { recursive: true, force: true });
  }
}

/** Bystander loops: each sends one message and receives-and-deletes one, at most every `pauseMs`. */
const bystanderLoops = 4;
const bystanderPauseMs = 20;
/** The bystanders run this long before the delete: their latency then, and the dead versions their own traffic keeps. */
const bystanderBaselineMs = 15_000;
/** How long the clearing (and then collection) may take before the run gives up waiting. */
const deletionWaitMsMax = 1_800_000;

/**
 * Deletes the filled queue, then samples the leader's metrics each second until the reaper has
 * cleared every tombstoned row and garbage collection has removed the dead versions that left, while
 * `bystanderLoops` loops produce to and consume from another queue (from `bystanderBaselineMs`
 * before the delete, for a baseline).
 */
async function timeQueueDeletion(nodes: readonly SoakNode[], leader: SoakNode, queueUrl: string): Promise<void> {
  const pool = new Pool(leader.sqsEndpoint, { connections: bystanderLoops + 1 });
  try {
    const { QueueUrl: bystanderUrl } = await call<{ QueueUrl: string }>(pool, 'CreateQueue', {
      QueueName: 'bystander',
      Attributes: {},
    });
    let latenciesMs: number[] = [];
    let isDone = false;
    let failedRounds = 0;
    const bystanders = Array.from({ length: bystanderLoops }, async () => {
      while (!isDone) {
        const sentMs = performance.now();
        try {
          await call(pool, 'SendMessage', { QueueUrl: bystanderUrl, MessageBody: body });
          const answer = await call<{ Messages?: ReceivedMessage[] }>(pool, 'ReceiveMessage', {
            QueueUrl: bystanderUrl,
            MaxNumberOfMessages: 1,
            WaitTimeSeconds: 0,
          });
          for (const message of answer.Messages ?? [])
            await call(pool, 'DeleteMessage', { QueueUrl: bystanderUrl, ReceiptHandle: message.ReceiptHandle });
          latenciesMs.push(performance.now() - sentMs);
        } catch {
          // A busy node may answer 503: counted, and the loop goes on.
          failedRounds++;
        }
        await delay(bystanderPauseMs);
      }
    });
    let clearedMs: number | undefined;
    let rowsAtDelete = 0;
    let collectedMs = 0;
    let cpuSeconds = 0;
    let baselineMs: number[] = [];
    try {
      let deadBaselineMax = 0;
      for (const end = performance.now() + bystanderBaselineMs; performance.now() < end;) {
        await delay(1_000);
        deadBaselineMax = Math.max(deadBaselineMax, (await sampleMetrics(leader))?.deadVersions ?? 0);
      }
      baselineMs = latenciesMs;
      latenciesMs = [];
      const liveRowsBefore = (await sampleMetrics(leader))?.liveRows ?? 0;
      const cpuBeforeMs = cpuOf(nodes);
      const deletedAtMs = performance.now();
      await call(pool, 'DeleteQueue', { QueueUrl: queueUrl });
      // Collection is done when the dead versions are back to what the bystanders alone keep.
      const deadSettled = Math.ceil(deadBaselineMax * 1.5) + 100;
      for (;;) {
        const sample = await sampleMetrics(leader);
        const elapsedMs = performance.now() - deletedAtMs;
        if (sample !== null) {
          if (clearedMs === undefined && sample.tombstonedRows === 0) clearedMs = elapsedMs;
          process.stderr.write(
            `\r  ${(elapsedMs / 1000).toFixed(0)} s: ${sample.tombstonedRows.toLocaleString('en')} tombstoned rows, ${sample.deadVersions.toLocaleString('en')} dead versions (settled at ${deadSettled.toLocaleString('en')})   `,
          );
          if (clearedMs !== undefined && sample.deadVersions <= deadSettled) break;
        }
        if (elapsedMs > deletionWaitMsMax) throw new Error(`not cleared after ${deletionWaitMsMax / 1000} s`);
        await delay(1_000);
      }
      collectedMs = performance.now() - deletedAtMs;
      // What the delete took away (the bystanders keep a handful of rows either side).
      rowsAtDelete = liveRowsBefore - ((await sampleMetrics(leader))?.liveRows ?? 0);
      cpuSeconds = (cpuOf(nodes) - cpuBeforeMs) / 1000;
    } finally {
      isDone = true;
      await Promise.allSettled(bystanders);
      process.stderr.write('\n');
    }
    baselineMs.sort((a, b) => a - b);
    latenciesMs.sort((a, b) => a - b);
    const latencyText = (sorted: readonly number[]) =>
      `p50 ${percentile(sorted, 50).toFixed(0)} ms p99 ${percentile(sorted, 99).toFixed(0)} ms max ${(sorted[sorted.length - 1] ?? 0).toFixed(0)} ms (${sorted.length} rounds)`;
    const clearedSeconds = (clearedMs ?? 0) / 1000;
    console.log(
      `  queue deleted: ~${rowsAtDelete.toLocaleString('en')} rows cleared in ${clearedSeconds.toFixed(1)} s (${Math.round(rowsAtDelete / Math.max(clearedSeconds, 0.001))} rows/s), ` +
        `dead versions collected ${(collectedMs / 1000).toFixed(1)} s after the delete; nodes' CPU meanwhile ${cpuSeconds.toFixed(1)} s (bystanders included)\n` +
        `  bystander send+receive+delete: before the delete ${latencyText(baselineMs)}; after ${latencyText(latenciesMs)}; ${failedRounds} failed rounds; load average ${loadavg()[0]?.toFixed(2)}`,
    );
  } finally {
    await pool.close();
  }
}

for (const backlog of backlogs) await runBacklog(backlog);
