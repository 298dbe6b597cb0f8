// A load generator process: runs its share of a cell's client slots against one system with the
// driver for its protocol, reports progress every quarter second, and at the stop returns its
// histograms, counts and its own CPU. The coordinator runs several so the client is never one
// saturated event loop.
import { setTimeout as delay } from 'node:timers/promises';
import type { LoadDriver } from './load-driver.js';
import { nowEpochMicros } from './message-body.js';
import { opTraceLine } from './op-trace.js';
import type { FromWorker, ToWorker, WorkerJob } from './worker-messages.js';
import { encodeLatencyHistogram, newLatencyHistogram, recordLatencyMicros } from '../stats/latency-histogram.js';

/** Pause after a failed operation, so a system that refuses everything is not hammered in a tight loop. */
const errorPauseMs = 20;
const progressIntervalMs = 250;
/** How long stopping slots may take (a long poll or a pull waiting out its expiry) before the worker reports without them. */
const slotDrainMsMax = 5_000;

function send(message: FromWorker): void {
  process.send?.(message);
}

/** Resolves once the message has been handed to the IPC channel, so exiting after it loses nothing. */
function sendAndFlush(message: FromWorker): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

/** Loads only the driver the job needs: a worker starts per phase, and loading every client library each time is seconds of CPU on a busy machine. */
async function createDriver(job: WorkerJob): Promise<LoadDriver> {
  switch (job.driver.target.kind) {
    case 'sqs':
      return new (await import('./sqs-driver.js')).SqsDriver(job.driver);
    case 'amqp':
      return new (await import('./amqp-driver.js')).AmqpDriver(job.driver);
    case 'nats':
      return new (await import('./nats-driver.js')).NatsDriver(job.driver);
    case 'etcd':
      return new (await import('./etcd-driver.js')).EtcdDriver(job.driver);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${err.name}: ${err.message}${cause}`.slice(0, 500);
  }
  return String(err).slice(0, 500);
}

class LoadWorker {
  private driver: LoadDriver | null = null;
  private job: WorkerJob | null = null;
  private windowStartMs = Number.POSITIVE_INFINITY;
  private isStopping = false;
  private cpuAtWindowStart: NodeJS.CpuUsage | null = null;
  private slots: Promise<void>[] = [];
  private progressTimer: NodeJS.Timeout | null = null;
  private readonly produceHistogram = newLatencyHistogram();
  private readonly consumeHistogram = newLatencyHistogram();
  private readonly endToEndHistogram = newLatencyHistogram();
  private produced = 0;
  private consumed = 0;
  private producedInWindow = 0;
  private consumedInWindow = 0;
  private emptyReceives = 0;
  private errors = 0;
  private firstError: string | undefined;
  private readonly opTraceLines: string[] = [];
  /** Producers parked until consumers catch up (see WorkerJob.producerLeadMessagesMax). */
  private readonly parkedProducers: (() => void)[] = [];

  async accept(job: WorkerJob): Promise<void> {
    this.job = job;
    this.driver = await createDriver(job);
    await this.driver.open();
    send({ type: 'ready' });
  }

  start(windowStartMs: number): void {
    const { driver, job } = this;
    if (driver === null || job === null) throw new Error('start before job');
    this.windowStartMs = windowStartMs;
    const untilWindow = Math.max(0, windowStartMs - Date.now());
    setTimeout(() => {
      this.cpuAtWindowStart ??= process.cpuUsage();
    }, untilWindow).unref();
    this.slots = [
      ...job.driver.producerSlots.map((slot) => this.runProducer(driver, slot)),
      ...job.driver.consumerSlots.map((slot) => this.runConsumer(driver, slot, job.recordsEndToEnd)),
    ];
    this.progressTimer = setInterval(
      () => send({ type: 'progress', produced: this.produced, consumed: this.consumed, errors: this.errors }),
      progressIntervalMs,
    );
  }

  /** Moves the window's start earlier (never later): the coordinator ended the warm-up early. */
  openWindow(windowStartMs: number): void {
    if (windowStartMs >= this.windowStartMs) return;
    this.windowStartMs = windowStartMs;
    this.cpuAtWindowStart ??= process.cpuUsage();
  }

  /**
   * An operation counts when it completes inside the window (after the warm-up, before the stop):
   * throughput is completions per second. Counting by start time instead would drop every
   * operation of a system slower than the window.
   */
  private isMeasured(): boolean {
    return !this.isStopping && Date.now() >= this.windowStartMs;
  }

  private async failed(err: unknown): Promise<void> {
    if (this.isStopping) return;
    this.errors++;
    this.firstError ??= describe(err);
    await delay(errorPauseMs);
  }

  private isProducerAhead(): boolean {
    const leadMax = this.job?.producerLeadMessagesMax ?? null;
    return leadMax !== null && this.produced - this.consumed > leadMax;
  }

  private wakeProducers(): void {
    for (const wake of this.parkedProducers.splice(0)) wake();
  }

  private async runProducer(driver: LoadDriver, slot: number): Promise<void> {
    while (!this.isStopping) {
      if (this.isProducerAhead()) {
        await new Promise<void>((resolve) => this.parkedProducers.push(resolve));
        continue;
      }
      const t0 = performance.now();
      try {
        const sent = await driver.produce(slot);
        this.produced += sent;
        if (this.job?.isOpTraced === true)
          this.opTraceLines.push(opTraceLine(t0, 'produce', performance.now() - t0, sent));
        if (this.isMeasured()) {
          recordLatencyMicros(this.produceHistogram, (performance.now() - t0) * 1000);
          this.producedInWindow += sent;
        }
      } catch (err) {
        await this.failed(err);
      }
    }
  }

  private async runConsumer(driver: LoadDriver, slot: number, recordsEndToEnd: boolean): Promise<void> {
    while (!this.isStopping) {
      const t0 = performance.now();
      try {
        const batch = await driver.consume(slot);
        this.consumed += batch.count;
        if (this.job?.isOpTraced === true)
          this.opTraceLines.push(opTraceLine(t0, 'consume', performance.now() - t0, batch.count));
        if (!this.isProducerAhead()) this.wakeProducers();
        if (batch.count === 0) {
          this.emptyReceives++;
          continue;
        }
        if (this.isMeasured()) {
          recordLatencyMicros(this.consumeHistogram, (performance.now() - t0) * 1000);
          this.consumedInWindow += batch.count;
          if (recordsEndToEnd) {
            const nowMicros = nowEpochMicros();
            for (const sentAt of batch.sentAtMicros) recordLatencyMicros(this.endToEndHistogram, nowMicros - sentAt);
          }
        }
      } catch (err) {
        await this.failed(err);
      }
    }
  }

  async stop(): Promise<void> {
    this.isStopping = true;
    const cpuNow = process.cpuUsage(this.cpuAtWindowStart ?? undefined);
    const clientCpuMicros = this.cpuAtWindowStart === null ? 0 : cpuNow.user + cpuNow.system;
    if (this.progressTimer !== null) clearInterval(this.progressTimer);
    this.driver?.interrupt();
    this.wakeProducers();
    await Promise.race([Promise.allSettled(this.slots), delay(slotDrainMsMax)]);
    await sendAndFlush({
      type: 'result',
      result: {
        produced: this.produced,
        consumed: this.consumed,
        errors: this.errors,
        producedInWindow: this.producedInWindow,
        consumedInWindow: this.consumedInWindow,
        emptyReceives: this.emptyReceives,
        ...(this.firstError === undefined ? {} : { firstError: this.firstError }),
        produceHistogram: encodeLatencyHistogram(this.produceHistogram),
        consumeHistogram: encodeLatencyHistogram(this.consumeHistogram),
        endToEndHistogram: encodeLatencyHistogram(this.endToEndHistogram),
        clientCpuMicros,
        ...(this.job?.isOpTraced === true ? { opTraceLines: this.opTraceLines } : {}),
      },
    });
    await Promise.race([this.driver?.close(), delay(slotDrainMsMax)]);
    // Open sockets of a client library must not keep a finished worker alive.
    process.exit(0);
  }
}

const worker = new LoadWorker();
process.on('message', (message: ToWorker) => {
  const run = async (): Promise<void> => {
    switch (message.type) {
      case 'job':
        return worker.accept(message.job);
      case 'start':
        return worker.start(message.windowStartMs);
      case 'open-window':
        return worker.openWindow(message.windowStartMs);
      case 'stop':
        return worker.stop();
    }
  };
  run().catch(async (err: unknown) => {
    await sendAndFlush({ type: 'failed', error: describe(err) });
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
