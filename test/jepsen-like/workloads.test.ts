import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createSqsServer } from 'local-aws-sqs';
import { SeededPrng } from '../../src/base/prng.js';
import { HistoryRecorder } from '../../jepsen-like/history/history-recorder.js';
import { pairOperations } from '../../jepsen-like/history/operation-pairs.js';
import { TcpProxy } from '../../jepsen-like/proxy/tcp-proxy.js';
import { MetadataWorkload } from '../../jepsen-like/workloads/metadata-workload.js';
import { QueueWorkload, type QueueWorkloadOptions } from '../../jepsen-like/workloads/queue-workload.js';
import { SqsEndpoint } from '../../jepsen-like/workloads/sqs-endpoint.js';
import type { Workload, WorkloadContext } from '../../jepsen-like/workloads/workload.js';
import { freePort } from '../support/ports.js';

// The SDK warns that its future versions need Node 22; the project runs Node 20 on purpose.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

// The workloads are exercised against an in-memory single-process SQS (local-aws-sqs) behind the
// harness's own proxy: that checks the client plumbing, the outcome classification and the
// checkers end to end, independently of raftq.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sqsBehindProxy(): Promise<{ proxy: TcpProxy; endpoint: SqsEndpoint }> {
  const port = await freePort();
  const server: Server = await createSqsServer({ port, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const proxy = new TcpProxy({
    name: 'client->sqs',
    listenHost: '127.0.0.1',
    listenPort: 0,
    targetHost: '127.0.0.1',
    targetPort: port,
  });
  await proxy.start();
  cleanups.push(() => proxy.close());
  const endpoint = new SqsEndpoint('sqs', `http://127.0.0.1:${proxy.port}`, 3_000);
  cleanups.push(() => endpoint.destroy());
  return { proxy, endpoint };
}

async function runFor(
  workload: Workload,
  endpoint: SqsEndpoint,
  runMs: number,
  during?: (nowMs: () => number, recorder: HistoryRecorder) => Promise<void>,
): Promise<{ recorder: HistoryRecorder }> {
  const start = performance.now();
  const nowMs = (): number => performance.now() - start;
  const recorder = new HistoryRecorder(nowMs);
  let isRunning = true;
  const ctx: WorkloadContext = {
    recorder,
    endpoints: [endpoint],
    prng: new SeededPrng(1),
    isRunning: () => isRunning,
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, runMs - nowMs())))),
    nowMs,
  };
  await workload.setup([endpoint]);
  const running = workload.run(ctx);
  await during?.(nowMs, recorder);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, runMs - nowMs())));
  isRunning = false;
  await running;
  await workload.drain(
    { ...ctx, isRunning: () => true, pause: (ms) => new Promise((r) => setTimeout(r, ms)) },
    nowMs() + 20_000,
  );
  return { recorder };
}

/** Resolves once the history holds a completion of `type` (polled; bounded only against a hang). */
async function historyHas(recorder: HistoryRecorder, type: 'ok' | 'info'): Promise<void> {
  const deadlineMs = Date.now() + 20_000;
  while (!recorder.history().some((op) => op.type === type)) {
    if (Date.now() > deadlineMs) throw new Error(`no ${type} operation in the history within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const queueOptions: QueueWorkloadOptions = {
  name: 'queue',
  queueName: 'jepsen-standard',
  isFifo: false,
  producers: 2,
  consumers: 2,
  groups: 3,
  sendsPerSecond: 60,
  visibilityTimeoutSeconds: 2,
  resendFraction: 0.1,
  batchSendFraction: 0.3,
  abandonFraction: 0.15,
};

describe('workloads against an in-memory SQS', () => {
  it('a standard queue run records sends, receives and deletes, and every checker passes', async () => {
    const { endpoint } = await sqsBehindProxy();
    const workload = new QueueWorkload(queueOptions);
    const { recorder } = await runFor(workload, endpoint, 1_500);
    const pairs = pairOperations(recorder.history());
    const report = workload.check(pairs, { clockAllowanceMs: 500, nowMs: () => performance.now() });
    expect(report.operations['send']?.['ok']).toBeGreaterThan(10);
    expect(report.operations['delete']?.['ok']).toBeGreaterThan(10);
    // Batches, releases and abandoned deliveries happen, and the abandoned ones come back.
    expect(report.operations['send-batch']?.['ok']).toBeGreaterThan(0);
    expect(report.operations['delete-batch']?.['ok']).toBeGreaterThan(0);
    expect(report.operations['change-visibility']?.['ok']).toBeGreaterThan(0);
    expect(report.valid, JSON.stringify(report.checkers, null, 1)).toBe(true);
  });

  it('a FIFO run records each delivery with its group, sequence number and deduplication id', async () => {
    // The in-memory reference is no judge of FIFO order (its SequenceNumbers are a prefix and a
    // counter glued together, so they do not compare as numbers), so this checks what the workload
    // records and that nothing is lost, not the FIFO verdict.
    const { endpoint } = await sqsBehindProxy();
    const workload = new QueueWorkload({
      ...queueOptions,
      name: 'fifo',
      queueName: 'jepsen-fifo.fifo',
      isFifo: true,
      resendFraction: 0.2,
    });
    const { recorder } = await runFor(workload, endpoint, 1_500);
    const pairs = pairOperations(recorder.history());
    const sends = pairs.filter((p) => p.f === 'send' && p.outcome === 'ok');
    expect(
      sends.every((p) => typeof (p.completion?.value as { sequenceNumber?: unknown }).sequenceNumber === 'string'),
    ).toBe(true);
    const delivered = pairs.flatMap((p) =>
      p.f === 'receive' && p.outcome === 'ok'
        ? (p.completion?.value as { messages: Array<Record<string, unknown>> }).messages
        : [],
    );
    expect(delivered.length).toBeGreaterThan(20);
    for (const m of delivered) {
      expect(m['groupId']).toMatch(/^g[0-2]$/);
      expect(m['sequenceNumber']).toMatch(/^\d+$/);
      expect(m['dedupId']).toBe(m['body']);
    }
    const report = workload.check(pairs, { clockAllowanceMs: 500, nowMs: () => performance.now() });
    expect(report.checkers['total-queue']?.valid).toBe(true);
    expect((report.checkers['fifo'] as unknown as { groups: number }).groups).toBe(3);
  });

  it('records reset connections as info, retires those processes, and still loses nothing', async () => {
    const { proxy, endpoint } = await sqsBehindProxy();
    const workload = new QueueWorkload(queueOptions);
    const { recorder } = await runFor(workload, endpoint, 2_000, async (_nowMs, live) => {
      // Resets from the first success until one operation has ended in info: events, not a window of time.
      await historyHas(live, 'ok');
      proxy.setMode({ kind: 'reset' });
      await historyHas(live, 'info');
      proxy.setMode({ kind: 'pass' });
    });
    const pairs = pairOperations(recorder.history());
    const infos = pairs.filter((p) => p.outcome === 'info');
    expect(infos.length).toBeGreaterThan(0);
    const processesAfterInfo = new Set(infos.map((p) => p.process));
    for (const p of pairs)
      if (processesAfterInfo.has(p.process))
        expect(p.invoke.index).toBeLessThanOrEqual(infos.find((i) => i.process === p.process)?.invoke.index ?? -1);
    const report = workload.check(pairs, { clockAllowanceMs: 500, nowMs: () => performance.now() });
    expect((report.checkers['total-queue'] as unknown as { lostCount: number }).lostCount).toBe(0);
  });

  it('a metadata run produces a history the linearizability checker can decide', async () => {
    const { endpoint } = await sqsBehindProxy();
    const workload = new MetadataWorkload({
      clients: 3,
      queues: 2,
      opsPerSecond: 60,
      searchStepsMax: 1_000_000,
      searchTimeMsMax: 10_000,
    });
    const { recorder } = await runFor(workload, endpoint, 1_500);
    const pairs = pairOperations(recorder.history());
    const report = workload.check(pairs, { clockAllowanceMs: 0, nowMs: () => performance.now() });
    expect(report.operations['metadata']?.['ok']).toBeGreaterThan(20);
    expect(report.valid, JSON.stringify(report.checkers, null, 1).slice(0, 3000)).not.toBe('unknown');
  });
});
