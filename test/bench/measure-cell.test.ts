import { describe, expect, it } from 'vitest';
import { clientBoundCpuShare, prefillCount, refillCount, slotsOf, summarizeOutcome } from '../../bench/measure-cell.js';
import { fullTiming, quickTiming } from '../../bench/bench-options.js';
import { newLatencyHistogram, recordLatencyMicros } from '../../bench/stats/latency-histogram.js';
import type { PhaseOutcome } from '../../bench/load/load-phase.js';
import { dealSlots } from '../../bench/load/load-phase.js';

function outcome(overrides: Partial<PhaseOutcome>): PhaseOutcome {
  const produce = newLatencyHistogram();
  recordLatencyMicros(produce, 2_000);
  return {
    windowSeconds: 4,
    totals: { produced: 0, consumed: 0, errors: 0 },
    producedInWindow: 0,
    consumedInWindow: 0,
    emptyReceives: 0,
    produce,
    consume: newLatencyHistogram(),
    endToEnd: newLatencyHistogram(),
    serverCpuSeconds: 3,
    clientCpuSeconds: 2,
    workerProcesses: 2,
    windowStartEpochMs: 1_000,
    windowEndEpochMs: 5_000,
    opTraceLines: [],
    ...overrides,
  };
}

describe('turning a phase into a cell measurement', () => {
  const produce = { workload: 'produce', messageBytes: 1024, batchSize: 10, concurrency: 32 } as const;

  it('throughput is the messages of the window over its length, CPU per 1000 of them', () => {
    const cell = summarizeOutcome('raftq-1', produce, outcome({ producedInWindow: 40_000 }));
    expect(cell.status).toBe('ok');
    expect(cell.throughputMsgsPerSecond).toBe(10_000);
    expect(cell.serverCpuSecondsPer1000Msgs).toBeCloseTo(0.075);
    expect(cell.latency.produce?.p50Ms).toBeCloseTo(2, 1);
    expect(cell.latency.consume).toBeNull();
  });

  it('a consume cell counts consumed messages, not produced ones', () => {
    const cell = summarizeOutcome(
      'etcd',
      { ...produce, workload: 'consume' },
      outcome({ producedInWindow: 99_999, consumedInWindow: 8_000 }),
    );
    expect(cell.throughputMsgsPerSecond).toBe(2_000);
  });

  it('marks a figure client-bound when the client processes were nearly saturated', () => {
    const busy = summarizeOutcome(
      'noop-http',
      produce,
      outcome({ producedInWindow: 1, clientCpuSeconds: 2 * 4 * clientBoundCpuShare }),
    );
    const idle = summarizeOutcome('noop-http', produce, outcome({ producedInWindow: 1, clientCpuSeconds: 1 }));
    expect(busy.isClientBound).toBe(true);
    expect(busy.clientCpuShare).toBeCloseTo(clientBoundCpuShare);
    expect(idle.isClientBound).toBe(false);
  });

  it('a window in which nothing moved is a failure that keeps the first error', () => {
    const cell = summarizeOutcome(
      'raftq-3',
      produce,
      outcome({
        firstError: 'LoadOperationError: SendMessageBatch: HTTP 503',
        totals: { produced: 0, consumed: 0, errors: 7 },
      }),
    );
    expect(cell.status).toBe('failed');
    expect(cell.reason).toContain('HTTP 503');
    expect(cell.errors).toBe(7);
    expect(cell.serverCpuSecondsPer1000Msgs).toBeNull();
  });

  it('splits a produce-consume cell between producers and consumers, at least one each', () => {
    expect(slotsOf({ ...produce, workload: 'produce-consume', concurrency: 32 })).toEqual({
      producers: 16,
      consumers: 16,
    });
    expect(slotsOf({ ...produce, workload: 'produce-consume', concurrency: 1 })).toEqual({
      producers: 1,
      consumers: 1,
    });
    expect(slotsOf({ ...produce, workload: 'consume', concurrency: 8 })).toEqual({ producers: 0, consumers: 8 });
  });

  it('prefills consume cells only, with fewer messages when they are large', () => {
    expect(prefillCount(produce, quickTiming)).toBe(0);
    expect(prefillCount({ ...produce, workload: 'consume' }, quickTiming)).toBe(quickTiming.prefillMessagesMax);
    expect(prefillCount({ ...produce, workload: 'consume', messageBytes: 65_536 }, fullTiming)).toBe(
      fullTiming.prefillBytesMax / 65_536,
    );
  });

  it('measures a consume cell again, from a prefill sized by its rate, only when the prefill ran out before the window ended', () => {
    const consume = { ...produce, workload: 'consume' as const };
    const prefilled = quickTiming.prefillMessagesMax;
    // A window of 1 s at 13,000 msgs/s: the 1 s warm-up and 3 s window need 13,000 × 4 / 0.95, with a quarter more.
    const short = { windowSeconds: 1, consumedInWindow: 13_000 };
    expect(refillCount(consume, quickTiming, prefilled, short)).toBe(68_420);
    // A window that ran (nearly) its whole length measured the rate already.
    expect(refillCount(consume, quickTiming, prefilled, { windowSeconds: 2.9, consumedInWindow: 20_000 })).toBeNull();
    expect(refillCount(produce, quickTiming, prefilled, short)).toBeNull();
    // Bounded by bytes: 128 MiB of 64 KiB messages, in whole batches of 10; a timing without refills has no room.
    expect(refillCount({ ...consume, messageBytes: 65_536 }, quickTiming, 512, short)).toBe(2_040);
    expect(refillCount(consume, { ...quickTiming, refillBytesMax: 0 }, prefilled, short)).toBeNull();
    // A short window that a tenth more would not lengthen is left as it is.
    expect(refillCount(consume, quickTiming, prefilled, { windowSeconds: 2, consumedInWindow: 4_000 })).toBeNull();
  });

  it('deals slots over worker processes round-robin, every slot exactly once', () => {
    expect(dealSlots(5, 2)).toEqual([
      [0, 2, 4],
      [1, 3],
    ]);
    expect(dealSlots(1, 2)).toEqual([[0], []]);
  });
});
