// Runs one phase of a cell (a prefill, or the measured run) across several load worker processes:
// forks them, hands each its share of the client slots, starts them together, watches their
// progress, ends the window (at its length, or early when `isDone` says so), and merges what they
// measured. Server CPU is read from /proc at the window's edges.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DriverOptions } from './load-driver.js';
import type { FromWorker, ToWorker, WorkerResult, WorkerTotals } from './worker-messages.js';
import { processTreeCpuSeconds } from '../stats/process-cpu.js';
import { mergeEncodedHistograms, type LatencyHistogram } from '../stats/latency-histogram.js';

/** The compiled worker next to this module (dist/bench/load/); a plan may name another (tests run from source). */
const defaultWorkerEntry = fileURLToPath(new URL('./load-worker.js', import.meta.url));
/** Connecting every slot (an AMQP channel each, say) may take a while on a loaded machine, not forever. */
const workerReadyMsMax = 60_000;
/** A worker reports within its own drain bound plus margin after the stop. */
const workerResultMsMax = 20_000;
const watchIntervalMs = 100;

export interface PhasePlan {
  readonly driver: Omit<DriverOptions, 'producerSlots' | 'consumerSlots'>;
  readonly producers: number;
  readonly consumers: number;
  readonly workerProcesses: number;
  readonly warmupMs: number;
  /** Longest measured window; `isDone` may end it sooner. */
  readonly windowMsMax: number;
  readonly isDone?: (totals: WorkerTotals) => boolean;
  /**
   * Ends the warm-up before `warmupMs` once true: a consume phase whose prefill a fast system would
   * drain within a fixed warm-up still gets a measured window (the window opens at that moment).
   */
  readonly isWarm?: (totals: WorkerTotals) => boolean;
  readonly recordsEndToEnd: boolean;
  /** Per worker; see WorkerJob.producerLeadMessagesMax. */
  readonly producerLeadMessagesMax: number | null;
  readonly serverPids: readonly number[];
  readonly onProgress?: (totals: WorkerTotals, elapsedMs: number) => void;
  readonly workerEntry?: string;
  /** Have the workers record every operation (op-trace.ts): PhaseOutcome.opTraceLines. */
  readonly isOpTraced?: boolean;
}

export interface PhaseOutcome {
  readonly windowSeconds: number;
  readonly totals: WorkerTotals;
  readonly producedInWindow: number;
  readonly consumedInWindow: number;
  readonly emptyReceives: number;
  readonly firstError?: string;
  readonly produce: LatencyHistogram;
  readonly consume: LatencyHistogram;
  readonly endToEnd: LatencyHistogram;
  readonly serverCpuSeconds: number;
  readonly clientCpuSeconds: number;
  readonly workerProcesses: number;
  /** The measured window on the epoch clock (op-trace.ts marks it). */
  readonly windowStartEpochMs: number;
  readonly windowEndEpochMs: number;
  /** Every worker's operations, unsorted, when the plan asked for them. */
  readonly opTraceLines: readonly string[];
}

export class LoadPhaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LoadPhaseError';
  }
}

/** Deals `count` slots (numbered 0..count-1) over `workers` round-robin. */
export function dealSlots(count: number, workers: number): number[][] {
  const shares: number[][] = Array.from({ length: workers }, () => []);
  for (let slot = 0; slot < count; slot++) shares[slot % workers]?.push(slot);
  return shares;
}

interface WorkerHandle {
  readonly child: ChildProcess;
  totals: WorkerTotals;
  result: WorkerResult | null;
  failure: string | null;
}

function waitFor(
  handles: readonly WorkerHandle[],
  isReached: (h: WorkerHandle) => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const timer = setInterval(() => {
      const failed = handles.find((h) => h.failure !== null);
      if (failed) {
        clearInterval(timer);
        reject(new LoadPhaseError(`a load worker failed: ${failed.failure}`));
        return;
      }
      if (handles.every(isReached)) {
        clearInterval(timer);
        resolve();
        return;
      }
      if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new LoadPhaseError(`load workers did not ${what} within ${timeoutMs} ms`));
      }
    }, 20);
  });
}

function sum(handles: readonly WorkerHandle[], pick: (t: WorkerTotals) => number): number {
  return handles.reduce((total, h) => total + pick(h.totals), 0);
}

export async function runLoadPhase(plan: PhasePlan): Promise<PhaseOutcome> {
  const workers = Math.max(1, Math.min(plan.workerProcesses, plan.producers + plan.consumers));
  const producerShares = dealSlots(plan.producers, workers);
  const consumerShares = dealSlots(plan.consumers, workers);
  const ready = new Set<WorkerHandle>();
  const handles: WorkerHandle[] = [];
  for (let w = 0; w < workers; w++) {
    const child = fork(plan.workerEntry ?? defaultWorkerEntry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const handle: WorkerHandle = {
      child,
      totals: { produced: 0, consumed: 0, errors: 0 },
      result: null,
      failure: null,
    };
    child.on('message', (message: FromWorker) => {
      if (message.type === 'ready') ready.add(handle);
      else if (message.type === 'progress')
        handle.totals = { produced: message.produced, consumed: message.consumed, errors: message.errors };
      else if (message.type === 'result') {
        handle.result = message.result;
        handle.totals = message.result;
      } else handle.failure = message.error;
    });
    child.on('exit', (code) => {
      if (handle.result === null && handle.failure === null)
        handle.failure = `exited with code ${code} before reporting`;
    });
    handles.push(handle);
    const job: ToWorker = {
      type: 'job',
      job: {
        driver: { ...plan.driver, producerSlots: producerShares[w] ?? [], consumerSlots: consumerShares[w] ?? [] },
        recordsEndToEnd: plan.recordsEndToEnd,
        producerLeadMessagesMax: plan.producerLeadMessagesMax,
        isOpTraced: plan.isOpTraced === true,
      },
    };
    child.send(job);
  }
  try {
    await waitFor(handles, (h) => ready.has(h), workerReadyMsMax, 'connect');
    const startedMs = Date.now();
    let windowStartMs = startedMs + plan.warmupMs;
    for (const h of handles) h.child.send({ type: 'start', windowStartMs } satisfies ToWorker);
    let serverCpuAtStart: number | null = null;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const now = Date.now();
        const totals = {
          produced: sum(handles, (t) => t.produced),
          consumed: sum(handles, (t) => t.consumed),
          errors: sum(handles, (t) => t.errors),
        };
        if (now < windowStartMs && (plan.isWarm?.(totals) ?? false)) {
          windowStartMs = now;
          for (const h of handles)
            if (h.child.connected) h.child.send({ type: 'open-window', windowStartMs } satisfies ToWorker);
        }
        if (serverCpuAtStart === null && now >= windowStartMs)
          serverCpuAtStart = processTreeCpuSeconds(plan.serverPids);
        plan.onProgress?.(totals, now - startedMs);
        const isOver =
          now >= windowStartMs + plan.windowMsMax ||
          // Not in the tick that opened the window early: what the workers complete after it is the measure.
          (now > windowStartMs && (plan.isDone?.(totals) ?? false)) ||
          handles.some((h) => h.failure !== null);
        if (isOver) {
          clearInterval(timer);
          resolve();
        }
      }, watchIntervalMs);
    });
    const windowEndMs = Date.now();
    const serverCpuAtEnd = processTreeCpuSeconds(plan.serverPids);
    for (const h of handles) if (h.child.connected) h.child.send({ type: 'stop' } satisfies ToWorker);
    await waitFor(handles, (h) => h.result !== null, workerResultMsMax, 'report');
    const results = handles.map((h) => h.result as WorkerResult);
    const firstError = results.find((r) => r.firstError !== undefined)?.firstError;
    return {
      windowSeconds: Math.max(0, windowEndMs - windowStartMs) / 1000,
      totals: {
        produced: sum(handles, (t) => t.produced),
        consumed: sum(handles, (t) => t.consumed),
        errors: sum(handles, (t) => t.errors),
      },
      producedInWindow: results.reduce((n, r) => n + r.producedInWindow, 0),
      consumedInWindow: results.reduce((n, r) => n + r.consumedInWindow, 0),
      emptyReceives: results.reduce((n, r) => n + r.emptyReceives, 0),
      ...(firstError === undefined ? {} : { firstError }),
      produce: mergeEncodedHistograms(results.map((r) => r.produceHistogram)),
      consume: mergeEncodedHistograms(results.map((r) => r.consumeHistogram)),
      endToEnd: mergeEncodedHistograms(results.map((r) => r.endToEndHistogram)),
      serverCpuSeconds: serverCpuAtStart === null ? 0 : serverCpuAtEnd - serverCpuAtStart,
      clientCpuSeconds: results.reduce((n, r) => n + r.clientCpuMicros, 0) / 1e6,
      workerProcesses: workers,
      windowStartEpochMs: windowStartMs,
      windowEndEpochMs: windowEndMs,
      opTraceLines: results.flatMap((r) => r.opTraceLines ?? []),
    };
  } finally {
    for (const h of handles) if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGKILL');
  }
}
