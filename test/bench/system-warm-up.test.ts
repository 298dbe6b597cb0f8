import { describe, expect, it } from 'vitest';
import { fullTiming, parseBenchOptions, quickTiming } from '../../bench/bench-options.js';
import { expandMatrix, quickMatrix, type CellSpec } from '../../bench/cell-spec.js';
import { waitForQuiet, warmUpCells, warmUpTiming } from '../../bench/system-warm-up.js';

describe('warming a system up before its first cell', () => {
  it('runs produce-consume at every batch size the run measures, at the first cell size and concurrency', () => {
    const cells = expandMatrix(quickMatrix);
    const warm = warmUpCells(cells);
    expect(warm.map((cell) => cell.batchSize)).toEqual([1, 10]);
    for (const cell of warm) {
      expect(cell.workload).toBe('produce-consume');
      expect(cell.messageBytes).toBe(cells[0]?.messageBytes);
      expect(cell.concurrency).toBe(cells[0]?.concurrency);
    }
    const only10: CellSpec[] = [{ workload: 'consume', messageBytes: 100, batchSize: 10, concurrency: 8 }];
    expect(warmUpCells(only10)).toEqual([
      { workload: 'produce-consume', messageBytes: 100, batchSize: 10, concurrency: 8 },
    ]);
    expect(warmUpCells([])).toEqual([]);
  });

  it('splits the warm-up time between its cells, with no warm-up or prefill of their own', () => {
    const timing = warmUpTiming(quickTiming, 2);
    expect(timing.windowMs).toBe(quickTiming.systemWarmupMs / 2);
    expect(timing.warmupMs).toBe(0);
    expect(quickTiming.systemWarmupMs).toBeGreaterThan(0);
    expect(fullTiming.systemWarmupMs).toBeGreaterThanOrEqual(quickTiming.systemWarmupMs);
  });

  it('--system-warmup-ms sets it, 0 turns it off, and nonsense is a usage error', () => {
    expect(parseBenchOptions(['--quick'], '/r').timing.systemWarmupMs).toBe(quickTiming.systemWarmupMs);
    expect(parseBenchOptions(['--quick', '--system-warmup-ms', '0'], '/r').timing.systemWarmupMs).toBe(0);
    expect(parseBenchOptions(['--system-warmup-ms', '5000'], '/r').timing).toEqual({
      ...fullTiming,
      systemWarmupMs: 5000,
    });
    expect(() => parseBenchOptions(['--system-warmup-ms', '-1'], '/r')).toThrow(/milliseconds/);
    expect(() => parseBenchOptions(['--system-warmup-ms', '1.5'], '/r')).toThrow(/milliseconds/);
  });
});

describe('waiting for the server to go quiet after the warm-up', () => {
  /** A server whose CPU seconds grow by the given amount in each successive interval. */
  function server(perInterval: readonly number[]): { read: () => number; sleep: (ms: number) => Promise<void> } {
    let cpuSeconds = 0;
    let interval = 0;
    return {
      read: () => cpuSeconds,
      sleep: async () => {
        cpuSeconds += perInterval[Math.min(interval, perInterval.length - 1)] ?? 0;
        interval += 1;
      },
    };
  }
  const wait = { quietCoreShare: 0.1, intervalMs: 1_000, waitMsMax: 5_000 };

  it('returns after the first interval at or under the quiet share', async () => {
    const busyThenQuiet = server([0.9, 0.5, 0.05]);
    expect(await waitForQuiet(busyThenQuiet.read, busyThenQuiet.sleep, wait)).toEqual({
      waitedMs: 3_000,
      isQuiet: true,
    });
    const quietAtOnce = server([0.1]);
    expect(await waitForQuiet(quietAtOnce.read, quietAtOnce.sleep, wait)).toEqual({ waitedMs: 1_000, isQuiet: true });
  });

  it('gives up after waitMsMax and says the server is still busy', async () => {
    const alwaysBusy = server([0.5]);
    expect(await waitForQuiet(alwaysBusy.read, alwaysBusy.sleep, wait)).toEqual({ waitedMs: 5_000, isQuiet: false });
  });

  it('judges each interval on its own CPU, not the total since the start', async () => {
    // 2.0 s in the first interval, then 0.05: quiet at the second although the average is high.
    const burst = server([2.0, 0.05]);
    expect(await waitForQuiet(burst.read, burst.sleep, wait)).toEqual({ waitedMs: 2_000, isQuiet: true });
  });
});
