// `npm run bench:fixed-rate -- [--nodes N] [--workload produce|produce-consume] [--rate MSGS_PER_S]
//   [--batch N] [--body-bytes N] [--warmup-seconds S] [--window-seconds S] [--windows N]`
//
// What raftq spends per message at a fixed offered rate: starts raftq (one node or a cluster on
// loopback, as `npm run bench` does), sends at the given rate (open loop, clients spread over the
// nodes), and prints, window by window, each node's CPU per message and role, the cluster's, and
// the latency. At saturation (what `npm run bench` measures) CPU per message moves with how the
// load happens to batch and with what else the two cores run; below it, at the same rate, two builds
// do the same work, so their CPU per message can be compared to a few percent in a few windows.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { BenchUsageError } from './bench-flags.js';
import { fixedRateUsage, parseFixedRateOptions, type FixedRateOptions } from './fixed-rate-options.js';
import { buildSendTemplate, createSqsQueue, parseJsonResponse } from './load/sqs-driver.js';
import { sqsJsonHeaders } from './load/sqs-json-request.js';
import { newLatencyHistogram, recordLatencyMicros } from './stats/latency-histogram.js';
import { clockTicksPerSecond, parseProcStat } from './stats/process-cpu.js';
import { freePorts } from './systems/free-ports.js';
import { startPeer, stopPeer } from './systems/peer-process.js';

/** Counts of what the load did; windows are differences of two snapshots. */
interface LoadCounts {
  sentMessages: number;
  consumedMessages: number;
  errors: number;
  /** Request slots the pacer found taken (the system fell behind the rate). */
  behind: number;
}

class FixedRateLoad {
  readonly counts: LoadCounts = { sentMessages: 0, consumedMessages: 0, errors: 0, behind: 0 };
  sendLatency = newLatencyHistogram();
  consumeLatency = newLatencyHistogram();
  firstError: string | null = null;
  private isRunning = true;
  private sendsInFlight = 0;
  private readonly template: ReturnType<typeof buildSendTemplate>;
  private readonly receiveBody: Buffer;

  constructor(
    private readonly pools: readonly Pool[],
    private readonly queueUrl: string,
    private readonly options: FixedRateOptions,
  ) {
    this.template = buildSendTemplate(queueUrl, options.bodyBytes, options.batchSize);
    this.receiveBody = Buffer.from(
      JSON.stringify({ QueueUrl: queueUrl, MaxNumberOfMessages: options.batchSize, WaitTimeSeconds: 1 }),
    );
  }

  /** Paced sends (requests per second = rate / batch), plus long-polling consumers for produce-consume. */
  start(): Promise<void> {
    const tasks = [this.pace()];
    if (this.options.workload === 'produce-consume') {
      // Enough long polls that receiving never trails sending: one per node and a few more.
      const consumers = Math.max(8, this.pools.length * 4);
      for (let i = 0; i < consumers; i++) tasks.push(this.consumeLoop(i));
    }
    return Promise.all(tasks).then(() => undefined);
  }

  stop(): void {
    this.isRunning = false;
  }

  private async pace(): Promise<void> {
    const requestsPerSecond = this.options.ratePerSecond / this.options.batchSize;
    const startedMs = performance.now();
    let issued = 0;
    let next = 0;
    while (this.isRunning) {
      const dueCount = Math.floor(((performance.now() - startedMs) / 1000) * requestsPerSecond);
      while (issued < dueCount) {
        issued++;
        if (this.sendsInFlight >= this.options.inFlightMax) {
          this.counts.behind++;
          continue;
        }
        void this.send(this.pools[next++ % this.pools.length] as Pool);
      }
      await sleep(2);
    }
  }

  private async send(pool: Pool): Promise<void> {
    this.sendsInFlight++;
    const startedUs = performance.now() * 1000;
    const action = this.options.batchSize === 1 ? 'SendMessage' : 'SendMessageBatch';
    try {
      const response = await pool.request({
        path: '/',
        method: 'POST',
        headers: sqsJsonHeaders(action),
        body: this.template.request,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${action}: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
      recordLatencyMicros(this.sendLatency, performance.now() * 1000 - startedUs);
      this.counts.sentMessages += this.options.batchSize;
    } catch (error) {
      this.noteError(error);
    } finally {
      this.sendsInFlight--;
    }
  }

  private async consumeLoop(index: number): Promise<void> {
    const pool = this.pools[index % this.pools.length] as Pool;
    while (this.isRunning) {
      const startedUs = performance.now() * 1000;
      try {
        const response = await pool.request({
          path: '/',
          method: 'POST',
          headers: sqsJsonHeaders('ReceiveMessage'),
          body: this.receiveBody,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200)
          throw new Error(`ReceiveMessage: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
        const messages = parseJsonResponse<{ Messages: { ReceiptHandle?: string }[] }>(text).Messages ?? [];
        if (messages.length === 0) continue;
        const entries = messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle }));
        const deleted = await pool.request({
          path: '/',
          method: 'POST',
          headers: sqsJsonHeaders('DeleteMessageBatch'),
          body: JSON.stringify({ QueueUrl: this.queueUrl, Entries: entries }),
        });
        const deletedText = await deleted.body.text();
        if (deleted.statusCode !== 200) throw new Error(`DeleteMessageBatch: HTTP ${deleted.statusCode}`);
        const failed = parseJsonResponse<{ Failed: unknown[] }>(deletedText).Failed ?? [];
        if (failed.length > 0) throw new Error(`DeleteMessageBatch: ${failed.length} failed`);
        recordLatencyMicros(this.consumeLatency, performance.now() * 1000 - startedUs);
        this.counts.consumedMessages += messages.length;
      } catch (error) {
        if (!this.isRunning) return;
        this.noteError(error);
        await sleep(50);
      }
    }
  }

  private noteError(error: unknown): void {
    this.counts.errors++;
    this.firstError ??= error instanceof Error ? error.message : String(error);
  }
}

function processCpuTicks(pid: number): number {
  const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  if (stat === null) throw new Error(`cannot read /proc/${pid}/stat`);
  return stat.cpuTicks;
}

async function roleOf(adminPort: number): Promise<string> {
  try {
    const text = await (
      await fetch(`http://127.0.0.1:${adminPort}/metrics`, { signal: AbortSignal.timeout(5_000) })
    ).text();
    return /raftq_raft_role\{role="leader"\} 1\b/.test(text) ? 'leader' : 'follower';
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  let options: FixedRateOptions;
  try {
    options = parseFixedRateOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`${error.message}\n${fixedRateUsage}\n`);
    process.exitCode = 2;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'raftq-fixed-rate-'));
  const ports = await freePorts(3 * options.nodes);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  log(`starting raftq, ${options.nodes} node(s)…`);
  const pools: Pool[] = [];
  try {
    const pids = await startPeer('raftq.sh', dir, ports.map(String), 120_000);
    const rolesAtStart = await Promise.all(pids.map((_, i) => roleOf(ports[3 * i + 1] as number)));
    const targets =
      options.onlyNode === null
        ? pids.map((_, i) => i)
        : [options.onlyNode === 0 ? Math.max(0, rolesAtStart.indexOf('leader')) : options.onlyNode - 1];
    for (const i of targets)
      pools.push(
        new Pool(`http://127.0.0.1:${ports[3 * i]}`, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 }),
      );
    const queueUrl = await createSqsQueue(`http://127.0.0.1:${ports[0]}`, `fixed-rate-${Date.now().toString(36)}`);
    const load = new FixedRateLoad(pools, queueUrl, options);
    const running = load.start();
    log(
      `${options.workload} at ${options.ratePerSecond} msgs/s (batch ${options.batchSize}, ${options.bodyBytes} B): warming up ${options.warmupSeconds} s…`,
    );
    await sleep(options.warmupSeconds * 1000);
    const roles = await Promise.all(pids.map((_, i) => roleOf(ports[3 * i + 1] as number)));
    process.stdout.write(
      `workload ${options.workload}, ${options.nodes} node(s), offered ${options.ratePerSecond} msgs/s, batch ${options.batchSize}, body ${options.bodyBytes} B\n` +
        `window  msgs/s  cpu µs/msg (cluster)  ${pids.map((pid, i) => `n${i + 1} ${roles[i]}`).join('  ')}  send p50/p99 ms  behind  errors\n`,
    );
    const cpuPerMessage: number[] = [];
    for (let w = 1; w <= options.windows; w++) {
      const ticksBefore = pids.map(processCpuTicks);
      const before = { ...load.counts };
      load.sendLatency = newLatencyHistogram();
      const startedMs = performance.now();
      await sleep(options.windowSeconds * 1000);
      const seconds = (performance.now() - startedMs) / 1000;
      const ticksAfter = pids.map(processCpuTicks);
      const messages =
        options.workload === 'produce'
          ? load.counts.sentMessages - before.sentMessages
          : load.counts.consumedMessages - before.consumedMessages;
      const cpuUs = pids.map(
        (_, i) => (((ticksAfter[i] as number) - (ticksBefore[i] as number)) / clockTicksPerSecond) * 1e6,
      );
      const clusterUs = cpuUs.reduce((a, b) => a + b, 0) / Math.max(1, messages);
      cpuPerMessage.push(clusterUs);
      const perNode = cpuUs.map((us) => `${(us / Math.max(1, messages)).toFixed(0).padStart(8)}`).join('  ');
      const p50 = load.sendLatency.getValueAtPercentile(50) / 1000;
      const p99 = load.sendLatency.getValueAtPercentile(99) / 1000;
      process.stdout.write(
        `${String(w).padStart(6)}  ${(messages / seconds).toFixed(0).padStart(6)}  ${clusterUs.toFixed(0).padStart(20)}  ${perNode}  ${p50.toFixed(1).padStart(7)}/${p99.toFixed(1)}  ${String(load.counts.behind - before.behind).padStart(6)}  ${String(load.counts.errors - before.errors).padStart(6)}\n`,
      );
    }
    const sorted = [...cpuPerMessage].sort((a, b) => a - b);
    process.stdout.write(
      `cluster CPU µs per message: median ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(0)}, range ${(sorted[0] as number).toFixed(0)}–${(sorted[sorted.length - 1] as number).toFixed(0)}\n`,
    );
    if (load.firstError !== null) process.stdout.write(`first error: ${load.firstError}\n`);
    load.stop();
    await Promise.race([running, sleep(5_000)]);
  } finally {
    await Promise.all(pools.map((pool) => pool.destroy()));
    stopPeer('raftq.sh', dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
