// Warms a freshly started system up before its first measured cell. A just-started raftq node runs
// its hot paths interpreted or in baseline code for seconds, and three nodes compiling the same
// code on two cores take longer still: SendMessage on a new three-node cluster, sampled every 2 s
// under load, cost 2.6 CPU s per 1000 in the first seconds, 1.3 after 10 s and 0.9–1.0 after 25 s.
// Measured cold, the first cells showed compilation, not the steady state a long-running broker
// is in. Every system gets the same warm-up: produce-consume traffic at each batch size the run
// measures (it sends, receives and deletes, and leaves little behind), in a queue of its own that
// is dropped afterwards, recorded nowhere. Longer is not simply better: on one node, 20 s of it
// consumed enough (over 50,000 deletes in one queue) for raftq to schedule a LevelDB range
// compaction 30 s later (stateCompactionDelayMs), which then landed in the first cells; 10 s
// (quick) stays under that and gets a three-node cluster most of the way.
import type { PhaseTiming } from './bench-options.js';
import type { CellSpec } from './cell-spec.js';
import { measureCell, type CellContext } from './measure-cell.js';

/**
 * The cells that warm a system up: produce-consume (it sends, receives and deletes) at each batch
 * size among `cells`, at the first cell's message size and concurrency.
 */
export function warmUpCells(cells: readonly CellSpec[]): CellSpec[] {
  const first = cells[0];
  if (first === undefined) return [];
  const batchSizes = [...new Set(cells.map((cell) => cell.batchSize))].sort((a, b) => a - b);
  return batchSizes.map((batchSize) => ({
    workload: 'produce-consume',
    messageBytes: first.messageBytes,
    batchSize,
    concurrency: first.concurrency,
  }));
}

/** Each warm-up cell's share of `systemWarmupMs`, run as one window with no warm-up of its own. */
export function warmUpTiming(timing: PhaseTiming, cellCount: number): PhaseTiming {
  return { ...timing, warmupMs: 0, windowMs: Math.max(1, Math.round(timing.systemWarmupMs / Math.max(1, cellCount))) };
}

/** Runs the warm-up cells (the caller skips this when systemWarmupMs is 0); returns the messages they moved. */
export async function warmUpSystem(context: CellContext, cells: readonly CellSpec[]): Promise<number> {
  const warmCells = warmUpCells(cells);
  const timing = warmUpTiming(context.timing, warmCells.length);
  let moved = 0;
  for (const [i, cell] of warmCells.entries()) {
    const measurement = await measureCell(
      { ...context, timing, queueName: `${context.queueName}-${i}`, opTraceDir: null },
      cell,
    );
    moved += measurement.consumedMessages;
  }
  return moved;
}

export interface QuietWait {
  /** Server CPU over one interval, as a share of one core, at or under which the system is quiet. */
  readonly quietCoreShare: number;
  readonly intervalMs: number;
  readonly waitMsMax: number;
}

/**
 * The warm-up leaves work behind (a raftq node collects the versions its deletes hid; a broker
 * compacts or truncates its log), and the first cell should not be billed for it: after the
 * warm-up the bench waits until the server's CPU over an interval falls to `quietCoreShare` of a
 * core, or `waitMsMax` passes.
 *
 * The same wait comes before every later cell. Every cell ends by dropping its queue, and what a
 * system does with a dropped queue of tens of thousands of messages (raftq clears the generation
 * through its log and then collects the versions; a broker deletes files) is the bench's cleanup,
 * not the next cell's workload. Until 2026-12-03 the next cell paid for it: one node's consume
 * cell ran beside the clearing of both produce cells' queues, at 0.24 CPU s per 1000 and a p99 of
 * 193 ms against 0.17 and 78 ms with the wait (docs/BENCHMARKS.md). What clearing costs is
 * measured on its own, by `bench/backlog.ts --delete-queue`.
 */
export const afterWarmUpQuiet: QuietWait = { quietCoreShare: 0.1, intervalMs: 1_000, waitMsMax: 60_000 };

/** Waits until the server is quiet (see QuietWait); resolves with how long it waited and whether it got there. */
export async function waitForQuiet(
  readCpuSeconds: () => number,
  sleepMs: (ms: number) => Promise<void>,
  wait: QuietWait = afterWarmUpQuiet,
): Promise<{ waitedMs: number; isQuiet: boolean }> {
  let waitedMs = 0;
  let before = readCpuSeconds();
  while (waitedMs < wait.waitMsMax) {
    await sleepMs(wait.intervalMs);
    waitedMs += wait.intervalMs;
    const now = readCpuSeconds();
    if ((now - before) / (wait.intervalMs / 1000) <= wait.quietCoreShare) return { waitedMs, isQuiet: true };
    before = now;
  }
  return { waitedMs, isQuiet: false };
}
