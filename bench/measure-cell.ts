// Measures one cell on a running system: make its queue, prefill it if the workload consumes,
// run the measured phase (a consume cell whose prefill ran out early once more, after a prefill
// sized by the rate it showed), summarise, drop the queue.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { cellKey, formatBytes, type CellSpec } from './cell-spec.js';
import type { PhaseTiming } from './bench-options.js';
import type { CellMeasurement } from './report/bench-result.js';
import type { LoadTarget, QueueRef } from './load/load-target.js';
import { runLoadPhase, type PhaseOutcome } from './load/load-phase.js';
import { formatOpTrace } from './load/op-trace.js';
import type { WorkerTotals } from './load/worker-messages.js';
import type { SystemDefinition } from './systems/system-catalog.js';
import { summarizeLatency } from './stats/latency-summary.js';

/** A client process this busy (share of one core) may be what capped the figure. */
export const clientBoundCpuShare = 0.85;
/** Prefills always send batches of 10 from this many slots: filling is not what is measured. */
const prefillBatchSize = 10;
const prefillSlots = 16;
/** A consume cell ends when this share of the prefill is consumed: the last partial batches measure the tail, not the rate. */
const consumeDoneShare = 0.95;
/**
 * A consume cell's warm-up ends early once this share of the prefill is consumed: a system that
 * drains a 64 KiB prefill within the fixed warm-up would otherwise leave an empty window.
 */
const consumeWarmShare = 0.5;
/**
 * In a produce-consume cell, how far producers may run ahead of consumers, in receive batches per
 * consumer slot: enough that consumers never wait on an idle producer, little enough that
 * end-to-end latency is the system's and not a backlog's.
 */
const mixedLeadBatchesPerConsumer = 4;
/** Long-poll wait of receives in a produce-consume cell; consume-only cells poll without waiting. */
const mixedReceiveWaitSeconds = 1;

export interface CellContext {
  readonly system: SystemDefinition;
  readonly target: LoadTarget;
  readonly serverPids: readonly number[];
  readonly timing: PhaseTiming;
  readonly clientProcesses: number;
  readonly queueName: string;
  readonly onProgress: (phase: string, totals: WorkerTotals, elapsedMs: number) => void;
  /** Where the measured phase's operation trace goes (`--op-trace`), as SYSTEM.CELL.ops.tsv. */
  readonly opTraceDir: string | null;
}

/** Splits a cell's concurrency between producers and consumers. */
export function slotsOf(cell: CellSpec): { producers: number; consumers: number } {
  switch (cell.workload) {
    case 'produce':
      return { producers: cell.concurrency, consumers: 0 };
    case 'consume':
      return { producers: 0, consumers: cell.concurrency };
    case 'produce-consume': {
      const producers = Math.max(1, Math.ceil(cell.concurrency / 2));
      return { producers, consumers: Math.max(1, cell.concurrency - producers) };
    }
  }
}

export function prefillCount(cell: CellSpec, timing: PhaseTiming): number {
  if (cell.workload === 'produce') return 0;
  if (cell.workload === 'produce-consume') return 0;
  return Math.max(
    prefillBatchSize,
    Math.min(timing.prefillMessagesMax, Math.floor(timing.prefillBytesMax / cell.messageBytes)),
  );
}

async function prefill(
  context: CellContext,
  cell: CellSpec,
  queue: QueueRef,
  messages: number,
  partitions: number,
  msMax: number,
): Promise<number> {
  const outcome = await runLoadPhase({
    driver: {
      target: context.target,
      queue,
      messageBytes: cell.messageBytes,
      batchSize: prefillBatchSize,
      partitions,
      receiveWaitSeconds: 0,
    },
    producers: Math.min(prefillSlots, Math.ceil(messages / prefillBatchSize)),
    consumers: 0,
    workerProcesses: context.clientProcesses,
    warmupMs: 0,
    windowMsMax: msMax,
    isDone: (totals) => totals.produced >= messages,
    recordsEndToEnd: false,
    producerLeadMessagesMax: null,
    serverPids: context.serverPids,
    onProgress: (totals, elapsedMs) => context.onProgress(`prefill ${messages}`, totals, elapsedMs),
  });
  if (outcome.totals.produced === 0)
    throw new Error(`prefill stored nothing${outcome.firstError ? `: ${outcome.firstError}` : ''}`);
  return outcome.totals.produced;
}

/** A consume window shorter than this share of the configured one ended because the prefill ran out. */
const filledWindowShare = 0.9;
/** A refill holds this much more than the measured rate asks for: the second measurement may run faster. */
const refillHeadroom = 1.25;
/** A refill smaller than this many times the first prefill would not lengthen the window enough to be worth a second run. */
const refillGrowthMin = 1.1;

/**
 * The prefill that fills a consume cell's warm-up and window at the rate `outcome` measured, when
 * its window ended short because the `prefilled` messages ran out (a system that drains half the
 * prefill within the warm-up, consumeWarmShare, gets a window of what is left); null when the
 * window was long enough, or when the bytes bound (refillBytesMax) leaves no room for enough more.
 */
export function refillCount(
  cell: CellSpec,
  timing: PhaseTiming,
  prefilled: number,
  outcome: Pick<PhaseOutcome, 'windowSeconds' | 'consumedInWindow'>,
): number | null {
  if (cell.workload !== 'consume' || prefilled <= 0 || outcome.windowSeconds <= 0) return null;
  if (outcome.windowSeconds * 1000 >= timing.windowMs * filledWindowShare) return null;
  const ratePerSecond = outcome.consumedInWindow / outcome.windowSeconds;
  const wanted = ((ratePerSecond * (timing.warmupMs + timing.windowMs)) / 1000 / consumeDoneShare) * refillHeadroom;
  const messages = Math.min(wanted, Math.floor(timing.refillBytesMax / cell.messageBytes));
  const batches = Math.floor(messages / prefillBatchSize);
  return batches * prefillBatchSize >= prefilled * refillGrowthMin ? batches * prefillBatchSize : null;
}

export function summarizeOutcome(system: string, cell: CellSpec, outcome: PhaseOutcome): CellMeasurement {
  const messages = cell.workload === 'produce' ? outcome.producedInWindow : outcome.consumedInWindow;
  const windowSeconds = outcome.windowSeconds;
  const throughput = windowSeconds > 0 ? messages / windowSeconds : 0;
  const clientCpuShare = windowSeconds > 0 ? outcome.clientCpuSeconds / (windowSeconds * outcome.workerProcesses) : 0;
  const failed = messages === 0;
  return {
    system,
    cell,
    status: failed ? 'failed' : 'ok',
    ...(failed ? { reason: outcome.firstError ?? 'no message moved in the measured window' } : {}),
    windowSeconds,
    producedMessages: outcome.producedInWindow,
    consumedMessages: outcome.consumedInWindow,
    throughputMsgsPerSecond: throughput,
    latency: {
      produce: summarizeLatency(outcome.produce),
      consume: summarizeLatency(outcome.consume),
      endToEnd: summarizeLatency(outcome.endToEnd),
    },
    serverCpuSeconds: Math.max(0, outcome.serverCpuSeconds),
    serverCpuSecondsPer1000Msgs: messages > 0 ? (Math.max(0, outcome.serverCpuSeconds) / messages) * 1000 : null,
    clientCpuSeconds: outcome.clientCpuSeconds,
    clientProcesses: outcome.workerProcesses,
    clientCpuShare,
    isClientBound: clientCpuShare >= clientBoundCpuShare,
    errors: outcome.totals.errors,
    ...(outcome.firstError === undefined ? {} : { firstError: outcome.firstError }),
    machineLoad1m: loadavg()[0] ?? 0,
  };
}

export function failedCell(system: string, cell: CellSpec, reason: string): CellMeasurement {
  return {
    system,
    cell,
    status: 'failed',
    reason,
    windowSeconds: 0,
    producedMessages: 0,
    consumedMessages: 0,
    throughputMsgsPerSecond: 0,
    latency: { produce: null, consume: null, endToEnd: null },
    serverCpuSeconds: 0,
    serverCpuSecondsPer1000Msgs: null,
    clientCpuSeconds: 0,
    clientProcesses: 0,
    clientCpuShare: 0,
    isClientBound: false,
    errors: 0,
    machineLoad1m: loadavg()[0] ?? 0,
  };
}

export async function measureCell(context: CellContext, cell: CellSpec): Promise<CellMeasurement> {
  const { producers, consumers } = slotsOf(cell);
  const queue = await context.system.queues.create(context.target, context.queueName);
  try {
    const partitions = Math.max(1, consumers);
    const isConsumeOnly = cell.workload === 'consume';
    const measure = (prefilled: number): Promise<PhaseOutcome> =>
      runLoadPhase({
        driver: {
          target: context.target,
          queue,
          messageBytes: cell.messageBytes,
          batchSize: cell.batchSize,
          partitions,
          receiveWaitSeconds: cell.workload === 'produce-consume' ? mixedReceiveWaitSeconds : 0,
        },
        producers,
        consumers,
        workerProcesses: context.clientProcesses,
        // Consume cells warm up too: a queue's first receives and deletes run cold code (JIT) and
        // fill caches, which is first-use cost, not the rate. The prefill holds enough for both, and a
        // system fast enough to drain half of it within the warm-up gets its window from then on.
        warmupMs: context.timing.warmupMs,
        windowMsMax: context.timing.windowMs,
        ...(isConsumeOnly
          ? {
              isWarm: (totals: WorkerTotals) => totals.consumed >= prefilled * consumeWarmShare,
              isDone: (totals: WorkerTotals) => totals.consumed >= prefilled * consumeDoneShare,
            }
          : {}),
        recordsEndToEnd: cell.workload === 'produce-consume',
        producerLeadMessagesMax:
          cell.workload === 'produce-consume'
            ? mixedLeadBatchesPerConsumer * cell.batchSize * Math.ceil(consumers / context.clientProcesses)
            : null,
        serverPids: context.serverPids,
        onProgress: (totals, elapsedMs) => context.onProgress(cellKey(cell), totals, elapsedMs),
        isOpTraced: context.opTraceDir !== null,
      });
    const toPrefill = prefillCount(cell, context.timing);
    let prefilled =
      toPrefill > 0 ? await prefill(context, cell, queue, toPrefill, partitions, context.timing.prefillMsMax) : 0;
    let outcome = await measure(prefilled);
    // A window the prefill could not fill measured a fast system's first second, not its rate:
    // once more, on the same queue, with as many messages as that rate needs.
    const refill = isConsumeOnly ? refillCount(cell, context.timing, prefilled, outcome) : null;
    if (refill !== null) {
      prefilled = await prefill(context, cell, queue, refill, partitions, context.timing.refillMsMax);
      outcome = await measure(prefilled);
    }
    if (context.opTraceDir !== null)
      writeFileSync(
        join(context.opTraceDir, `${context.system.id}.${cellKey(cell)}.ops.tsv`),
        formatOpTrace(outcome.windowStartEpochMs, outcome.windowEndEpochMs, outcome.opTraceLines),
      );
    const measured = summarizeOutcome(context.system.id, cell, outcome);
    return isConsumeOnly
      ? { ...measured, prefilledMessages: prefilled, ...(refill !== null ? { isRefilled: true } : {}) }
      : measured;
  } finally {
    await context.system.queues.remove(context.target, queue).catch(() => undefined);
  }
}

export function describeCell(cell: CellSpec): string {
  return `${cell.workload} ${formatBytes(cell.messageBytes)} batch ${cell.batchSize} ×${cell.concurrency}`;
}
