// `npm run bench:soak -- --minutes N [--nodes 1|3] [--rate MSGS_PER_S] [--message-bytes B]
//  [--sample-seconds S] [--purge-every-s S] [--cycle-every-s S] [--out DIR] [--keep-data]
//  [--cpu-prof-dir DIR] [--reaper-interval-ms MS]`
//
// A long run against real raftq node(s): steady producers and consumers with purges, queue
// delete/recreate cycles, expiring messages and FIFO dedup rows (soak/soak-load.ts). Every sample
// it records the live keys and dead versions of the state (/metrics), the bytes of DATA/state on
// disk and the ReceiveMessage latency; at the end it writes the samples (JSON) and three plots
// (SVG) into bench/results/ and says whether live keys and disk size levelled off and whether the
// receive latency of the last minute is within 1.5x of the first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { directoryBytes, processCpuMs, sampleMetrics, SoakCluster } from './soak/soak-cluster.js';
import { SoakLoad } from './soak/soak-load.js';
import { latencyRatioMax, levelGrowthMax, soakPlots, soakVerdict, type SoakSample } from './soak/soak-report.js';
import { percentile } from './stats/percentile.js';

interface SoakOptions {
  readonly minutes: number;
  readonly nodes: number;
  readonly rate: number;
  readonly messageBytes: number;
  readonly sampleSeconds: number;
  readonly purgeEverySeconds: number;
  readonly cycleEverySeconds: number;
  readonly outDir: string;
  readonly keepData: boolean;
  readonly cpuProfileDir: string | undefined;
  /** Passed to every node as --reaper-interval-ms (default: the node's own default). */
  readonly reaperIntervalMs: number | undefined;
}

function parseOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: 'string', default: '10' },
      nodes: { type: 'string', default: '1' },
      rate: { type: 'string', default: '200' },
      'message-bytes': { type: 'string', default: '256' },
      'sample-seconds': { type: 'string', default: '10' },
      'purge-every-s': { type: 'string', default: '65' },
      'cycle-every-s': { type: 'string', default: '30' },
      out: { type: 'string', default: new URL('../../bench/results', import.meta.url).pathname },
      'keep-data': { type: 'boolean', default: false },
      'cpu-prof-dir': { type: 'string' },
      'reaper-interval-ms': { type: 'string' },
    },
  });
  const number = (name: keyof typeof values, min: number): number => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min)
      throw new Error(`--${name} must be a number >= ${min}, got ${String(values[name])}`);
    return value;
  };
  const nodes = number('nodes', 1);
  if (nodes !== 1 && nodes !== 3) throw new Error('--nodes must be 1 or 3');
  return {
    minutes: number('minutes', 0.5),
    nodes,
    rate: number('rate', 10),
    messageBytes: number('message-bytes', 1),
    sampleSeconds: number('sample-seconds', 1),
    // AWS allows one PurgeQueue per 60 s.
    purgeEverySeconds: number('purge-every-s', 60),
    cycleEverySeconds: number('cycle-every-s', 5),
    outDir: String(values.out),
    keepData: values['keep-data'] === true,
    cpuProfileDir: values['cpu-prof-dir'],
    reaperIntervalMs: values['reaper-interval-ms'] === undefined ? undefined : number('reaper-interval-ms', 10),
  };
}

function formatMs(ms: number | null): string {
  return ms === null || Number.isNaN(ms) ? '-' : `${ms.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const baseDir = mkdtempSync(join(tmpdir(), 'raftq-soak-'));
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d+Z$/, 'Z');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`soak: ${options.minutes} min, ${options.nodes} node(s), ${options.rate} msgs/s steady, data in ${baseDir}`);
  const cluster = await SoakCluster.start({
    nodeCount: options.nodes,
    baseDir,
    extraArgs: options.reaperIntervalMs === undefined ? [] : ['--reaper-interval-ms', String(options.reaperIntervalMs)],
    ...(options.cpuProfileDir === undefined
      ? {}
      : { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] }),
  });
  const load = new SoakLoad({
    endpoints: cluster.nodes.map((n) => n.sqsEndpoint),
    messagesPerSecond: options.rate,
    messageBytes: options.messageBytes,
    purgeEveryMs: options.purgeEverySeconds * 1000,
    cycleEveryMs: options.cycleEverySeconds * 1000,
  });
  const samples: SoakSample[] = [];
  const latencies: Array<{ tSeconds: number; ms: number }> = [];
  const startedMs = Date.now();
  const runMs = options.minutes * 60_000;
  try {
    await load.start();
    let previous = { sent: 0, received: 0 };
    // Per node: the leader may change between samples of a 3-node run.
    const previousCpuMs = new Map(cluster.nodes.map((n) => [n.id, processCpuMs(n)]));
    for (let next = options.sampleSeconds * 1000; next <= runMs; next += options.sampleSeconds * 1000) {
      await delay(Math.max(0, startedMs + next - Date.now()));
      const tSeconds = (Date.now() - startedMs) / 1000;
      const window = load.drainReceiveLatencies().sort((a, b) => a - b);
      for (const ms of window) latencies.push({ tSeconds, ms });
      const leader = await cluster.leader();
      const metrics = await sampleMetrics(leader);
      const stateBytes = directoryBytes(join(leader.dataDir, 'state'));
      const stateBytesMax = Math.max(...cluster.nodes.map((n) => directoryBytes(join(n.dataDir, 'state'))));
      const counters = { ...load.counters };
      const cpuMs = processCpuMs(leader);
      const messages = counters.sent - previous.sent + (counters.received - previous.received);
      const sample: SoakSample = {
        tSeconds,
        liveRows: metrics?.liveRows ?? Number.NaN,
        deadVersions: metrics?.deadVersions ?? Number.NaN,
        tombstonedRows: metrics?.tombstonedRows ?? Number.NaN,
        rowsByFamily: metrics?.rowsByFamily ?? {},
        stateBytes,
        stateBytesMax,
        gcPasses: metrics?.gcPasses ?? 0,
        compactions: metrics?.compactions ?? 0,
        sent: counters.sent,
        received: counters.received,
        errors: counters.errors,
        receiveP50Ms: window.length > 0 ? percentile(window, 0.5) : null,
        receiveP99Ms: window.length > 0 ? percentile(window, 0.99) : null,
        loadAverage: loadavg()[0] ?? 0,
        nodeCpuMsPerMessage:
          cpuMs === null || messages === 0 ? null : (cpuMs - (previousCpuMs.get(leader.id) ?? cpuMs)) / messages,
      };
      for (const node of cluster.nodes) previousCpuMs.set(node.id, processCpuMs(node));
      samples.push(sample);
      const rate = (n: number) => Math.round(n / options.sampleSeconds);
      const clock = `${Math.floor(tSeconds / 60)}:${String(Math.floor(tSeconds % 60)).padStart(2, '0')}`;
      log(
        `[${clock.padStart(5)}/${options.minutes}m] sent ${rate(counters.sent - previous.sent)}/s received ${rate(counters.received - previous.received)}/s` +
          ` live keys ${sample.liveRows} dead versions ${sample.deadVersions} tombstoned ${sample.tombstonedRows} state ${(stateBytes / 1e6).toFixed(1)} MB` +
          ` receive p50 ${formatMs(sample.receiveP50Ms)} p99 ${formatMs(sample.receiveP99Ms)} purges ${counters.purges} cycles ${counters.cycles}` +
          ` node CPU ${sample.nodeCpuMsPerMessage?.toFixed(3) ?? '-'} ms/msg load ${sample.loadAverage.toFixed(1)}${counters.errors > 0 ? ` errors ${counters.errors} (last: ${counters.lastError})` : ''}`,
      );
      previous = counters;
    }
  } finally {
    await load.stop().catch(() => undefined);
    await cluster.stop();
  }

  const runSeconds = (Date.now() - startedMs) / 1000;
  const verdict = soakVerdict(samples, latencies, runSeconds);
  const title = `soak ${stamp}, ${options.nodes} node(s), ${options.rate} msgs/s`;
  const plots = soakPlots(samples, verdict, title);
  mkdirSync(options.outDir, { recursive: true });
  const base = join(options.outDir, `soak-${stamp}`);
  writeFileSync(`${base}-keys.svg`, plots.keys);
  writeFileSync(`${base}-disk.svg`, plots.disk);
  writeFileSync(`${base}-latency.svg`, plots.latency);
  writeFileSync(`${base}-load.svg`, plots.load);
  writeFileSync(`${base}-cpu.svg`, plots.cpu);
  writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ options, runSeconds, counters: load.counters, verdict, samples }, null, 1)}\n`,
  );

  const first = verdict.minutes[0];
  const last = verdict.minutes[verdict.minutes.length - 1];
  log('');
  log(
    `receive latency: minute 1 p50 ${formatMs(first?.p50Ms ?? null)} p99 ${formatMs(first?.p99Ms ?? null)}; minute ${last?.minute ?? '-'} p50 ${formatMs(last?.p50Ms ?? null)} p99 ${formatMs(last?.p99Ms ?? null)}`,
  );
  log(
    `  ratio minute N / minute 1: p50 ${verdict.p50Ratio?.toFixed(2) ?? '-'} p99 ${verdict.p99Ratio?.toFixed(2) ?? '-'} (bound ${latencyRatioMax}): ${verdict.isLatencyWithinBound ? 'within' : 'NOT within'}`,
  );
  log(
    `live keys: last quarter / quarter before ${verdict.liveRows.lastQuarterOverThird.toFixed(3)} (level if <= ${levelGrowthMax}): ${verdict.liveRows.isLevel ? 'level' : 'GROWING'}`,
  );
  log(
    `DATA/state bytes: last quarter / quarter before ${verdict.stateBytes.lastQuarterOverThird.toFixed(3)}: ${verdict.stateBytes.isLevel ? 'level' : 'GROWING'}`,
  );
  log(
    `leader CPU per message: last quarter / quarter before ${verdict.cpuPerMessage.lastQuarterOverThird.toFixed(3)}: ${verdict.cpuPerMessage.isLevel ? 'level' : 'GROWING'}`,
  );
  log(
    `sent ${load.counters.sent}, received ${load.counters.received}, purges ${load.counters.purges}, delete/recreate cycles ${load.counters.cycles}, errors ${load.counters.errors}`,
  );
  log(`wrote ${base}.json and ${base}-{keys,disk,latency,load,cpu}.svg`);
  if (!options.keepData) rmSync(baseDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
