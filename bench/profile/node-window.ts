// `node dist/bench/profile/node-window.js SECONDS PID...`: what each running raftq node did over a
// window — its role, its CPU (all threads, from /proc/PID/stat), and how far the counters that say
// how it spent that CPU moved (transactions applied, apply steps, synced log writes, entries
// proposed, operations forwarded and served, bytes collection read), each from two /metrics answers
// of the node's admin endpoint, found in its command line (--admin-listen). Linux only. From these,
// CPU per transaction and transactions per entry of a leader and of its followers, apart. Then, for
// the histograms that say where a request's time goes (apply steps, synced log writes, collection
// steps, SQS requests by action), how many were observed in the window and their mean, and for SQS
// requests how many took longer than 100 ms (the server's side of a client's p99).
import { readFileSync } from 'node:fs';
import { procCpuTicks, procTicksPerSecond } from './proc-stat.js';

/** Counters read, by the name printed. A name alone sums a counter over its labels; a name with labels reads one series. */
const counters: ReadonlyArray<readonly [label: string, metric: string]> = [
  ['txns applied', 'raftq_applied_txns_total'],
  ['apply steps', 'raftq_apply_seconds_count'],
  ['log syncs', 'raftq_fsyncs_total'],
  ['ready turns', 'raftq_ready_turns_total'],
  ['raft msgs sent', 'raftq_raft_messages_sent_total'],
  ['  of them appends', 'raftq_raft_messages_sent_total{kind="app"}'],
  ['  of them empty appends', 'raftq_raft_messages_sent_total{kind="app-empty"}'],
  ['raft msgs received', 'raftq_raft_messages_received_total'],
  ['entries proposed', 'raftq_proposed_entries_total'],
  ['ops forwarded', 'raftq_forwarded_ops_total'],
  ['ops served', 'raftq_served_forwarded_ops_total'],
  ['collection MB read', 'raftq_state_gc_read_bytes_total'],
  ['SQS requests', 'raftq_sqs_requests_total'],
];

/** Histograms read, by the name printed; an SQS request's is shown per action. */
const histograms: ReadonlyArray<readonly [label: string, metric: string]> = [
  ['apply steps', 'raftq_apply_seconds'],
  ['log syncs', 'raftq_fsync_seconds'],
  ['collection steps', 'raftq_state_gc_step_seconds'],
  ['forwarded ops', 'raftq_forwarded_op_seconds'],
  ['served forwarded ops', 'raftq_served_forwarded_op_seconds'],
];
const requestHistogram = 'raftq_sqs_request_duration_seconds';
/** The bucket whose count, taken from the total, is the requests slower than it. */
const slowRequestBucketLe = '0.1';

interface Sample {
  readonly cpuTicks: number;
  readonly values: ReadonlyMap<string, number>;
  readonly isLeader: boolean;
}

function adminUrl(pid: number): string {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const at = argv.indexOf('--admin-listen');
  const address = at < 0 ? undefined : argv[at + 1];
  if (address === undefined) throw new Error(`process ${pid} has no --admin-listen: not a raftq node?`);
  return `http://${address}/metrics`;
}

/** Each series of a Prometheus text answer, and each metric's sum over its labels. */
function parseCounters(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const name = line.slice(0, line.search(/[{ ]/));
    const series = line.slice(0, line.lastIndexOf(' '));
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    sums.set(name, (sums.get(name) ?? 0) + value);
    if (series !== name) sums.set(series, value);
  }
  return sums;
}

/**
 * A scrape counts every queue's messages with bounded scans (message-counts.ts): with 200,000
 * queued, under load, one took over 5 s.
 */
const scrapeMsMax = 60_000;

async function sample(pid: number, url: string): Promise<Sample> {
  const ticks = procCpuTicks(`/proc/${pid}/stat`);
  const text = await (await fetch(url, { signal: AbortSignal.timeout(scrapeMsMax) })).text();
  return {
    cpuTicks: ticks,
    values: parseCounters(text),
    isLeader: /raftq_raft_role\{role="leader"\} 1\b/.test(text),
  };
}

async function main(): Promise<void> {
  const [secondsArg, ...pidArgs] = process.argv.slice(2);
  const seconds = Number(secondsArg);
  const pids = pidArgs.map(Number);
  if (!(seconds > 0) || pids.length === 0 || !pids.every((pid) => Number.isInteger(pid) && pid > 0)) {
    process.stderr.write('usage: node-window SECONDS PID...\n');
    process.exitCode = 2;
    return;
  }
  const urls = pids.map(adminUrl);
  const before = await Promise.all(pids.map((pid, i) => sample(pid, urls[i] as string)));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = await Promise.all(pids.map((pid, i) => sample(pid, urls[i] as string)));
  pids.forEach((pid, i) => {
    const [b, a] = [before[i] as Sample, after[i] as Sample];
    const delta = (metric: string): number => (a.values.get(metric) ?? 0) - (b.values.get(metric) ?? 0);
    const cpuS = (a.cpuTicks - b.cpuTicks) / procTicksPerSecond;
    const txns = delta('raftq_applied_txns_total');
    const steps = delta('raftq_apply_seconds_count');
    process.stdout.write(
      `pid ${pid} (${a.isLeader ? 'leader' : 'follower'}), ${seconds} s: CPU ${cpuS.toFixed(2)} s` +
        (txns > 0 ? `, ${((cpuS * 1e6) / txns).toFixed(0)} µs per txn applied` : '') +
        (steps > 0 ? `, ${(txns / steps).toFixed(1)} txns per apply step` : '') +
        '\n',
    );
    for (const [label, metric] of counters) {
      const moved = delta(metric);
      if (moved === 0) continue;
      const shown = label.endsWith('MB read') ? (moved / 1e6).toFixed(1) : String(Math.round(moved));
      process.stdout.write(`  ${shown.padStart(10)}  ${label}\n`);
    }
    for (const [label, metric] of histograms)
      writeHistogramLine(label, delta(`${metric}_count`), delta(`${metric}_sum`));
    for (const action of actionsOf(a.values)) {
      const moved = (suffix: string, labels: readonly string[]): number =>
        seriesValue(a.values, `${requestHistogram}${suffix}`, labels) -
        seriesValue(b.values, `${requestHistogram}${suffix}`, labels);
      const of = `action="${action}"`;
      const count = moved('_count', [of]);
      if (count === 0) continue;
      const slow = count - moved('_bucket', [of, `le="${slowRequestBucketLe}"`]);
      writeHistogramLine(`SQS ${action}`, count, moved('_sum', [of]), `, ${slow} over 100 ms`);
    }
  });
}

function writeHistogramLine(label: string, count: number, sumSeconds: number, extra = ''): void {
  if (count <= 0) return;
  const meanMs = ((sumSeconds / count) * 1000).toFixed(2);
  process.stdout.write(`  ${String(Math.round(count)).padStart(10)}  ${label}, mean ${meanMs} ms${extra}\n`);
}

/** The value of the series of `name` with all of `labels` (in whatever order the answer gives them); 0 if none. */
function seriesValue(values: ReadonlyMap<string, number>, name: string, labels: readonly string[]): number {
  for (const [series, value] of values)
    if (series.startsWith(`${name}{`) && labels.every((label) => series.includes(label))) return value;
  return 0;
}

/** The SQS actions the node's request histogram has a series of. */
function actionsOf(values: ReadonlyMap<string, number>): string[] {
  const actions = new Set<string>();
  const pattern = new RegExp(`^${requestHistogram}_count\\{.*action="([^"]+)"`);
  for (const name of values.keys()) {
    const action = pattern.exec(name)?.[1];
    if (action !== undefined) actions.add(action);
  }
  return [...actions].sort();
}

await main();
