// Counts a node's calls into LevelDB's native binding (classic-level): calls, the main-thread time
// spent inside each call, and — for iterator opens, iterator reads and multi-gets — the four
// nearest raftq frames that made them. Preload it into a node
// (RAFTQ_BENCH_NODE_ARGS="--import ./dist/bench/profile/level-call-counter.js", with
// RAFTQ_LEVEL_CALLS_DIR=DIR); every second it writes DIR/PID.json with the totals so far, so
// two copies taken at a window's edges give that window's calls (subtract them).
//
// Why: a native call that only queues work for libuv's threads still costs the main thread its
// own time, and on a machine whose cores are busy the woken thread can take the core from it; a
// CPU profile shows that as the calling function's self time without saying how many calls it was.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface CallTotals {
  calls: number;
  ms: number;
}

/** Calls whose call sites are kept: the reads whose count depends on what raftq asks for. */
const tracedCalls = new Set(['iterator_init', 'iterator_nextv', 'db_get_many', 'db_get']);
const framesKept = 4;
const writeIntervalMs = 1_000;

const require = createRequire(import.meta.url);
const binding = require('classic-level/binding.js') as Record<string, unknown>;
const totals: Record<string, CallTotals> = {};
const callSites: Record<string, number> = {};

/** The nearest raftq frames of the current stack, dist/ paths shortened. */
function callSite(): string {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = 16;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = saved;
  return stack
    .split('\n')
    .slice(3)
    .map((line) => line.trim().replace(/^at /, ''))
    .filter((line) => line.includes('/dist/src/'))
    .slice(0, framesKept)
    .map((line) => line.replace(/file:\/\/\S*\/dist\//, ''))
    .join(' < ');
}

for (const [name, value] of Object.entries(binding)) {
  if (typeof value !== 'function') continue;
  const original = value as (...args: unknown[]) => unknown;
  const counted: CallTotals = { calls: 0, ms: 0 };
  totals[name] = counted;
  binding[name] = function (this: unknown, ...args: unknown[]): unknown {
    if (tracedCalls.has(name)) {
      const site = `${name}: ${callSite()}`;
      callSites[site] = (callSites[site] ?? 0) + 1;
    }
    const startedMs = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      counted.ms += performance.now() - startedMs;
      counted.calls += 1;
    }
  };
}

const dir = process.env['RAFTQ_LEVEL_CALLS_DIR'] ?? process.cwd();
setInterval(
  () => writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ atMs: Date.now(), totals, callSites })),
  writeIntervalMs,
).unref();
