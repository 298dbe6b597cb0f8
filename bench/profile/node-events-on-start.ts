// Preload into a node (RAFTQ_BENCH_NODE_ARGS="--import $PWD/dist/bench/profile/node-events-on-start.js")
// to record its V8 collections and event-loop stalls from the start, as node-events.ts describes,
// in DIR/PID.events.tsv (DIR: RAFTQ_PROFILE_DIR, or the working directory), appended twice a
// second. A stall is counted from stallMinMs: shorter lateness is a busy loop's ordinary jitter.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants, performance, type PerformanceEntry } from 'node:perf_hooks';
import { nodeEventLine, type NodeEventKind } from './node-events.js';

const timerMs = 10;
const stallMinMs = 20;
const flushEveryMs = 500;

const file = join(process.env['RAFTQ_PROFILE_DIR'] ?? process.cwd(), `${process.pid}.events.tsv`);
const pending: string[] = [];

const gcKinds = new Map<number, NodeEventKind>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'gc-minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'gc-major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'gc-incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'gc-weakcb'],
]);

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // Node puts a collection's kind in the entry's `detail`, which the type of a generic entry lacks.
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
    const kind = gcKinds.get(detail?.kind ?? -1);
    if (kind === undefined) continue;
    pending.push(
      nodeEventLine({ kind, startEpochMs: performance.timeOrigin + entry.startTime, durationMs: entry.duration }),
    );
  }
}).observe({ entryTypes: ['gc'] });

let lastTickMs = performance.now();
setInterval(() => {
  const nowMs = performance.now();
  const lateMs = nowMs - lastTickMs - timerMs;
  if (lateMs >= stallMinMs)
    pending.push(
      nodeEventLine({ kind: 'stall', startEpochMs: performance.timeOrigin + lastTickMs + timerMs, durationMs: lateMs }),
    );
  lastTickMs = nowMs;
}, timerMs).unref();

setInterval(() => {
  if (pending.length > 0) appendFileSync(file, `${pending.splice(0).join('\n')}\n`);
}, flushEveryMs).unref();
