// The whole load path against a real socket: the coordinator forks the compiled worker processes
// (npm run build puts them in dist/bench/load/), they drive an HTTP server in this process with
// raw SQS JSON requests, and report counts, histograms and CPU back.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoadPhase, type PhasePlan } from '../../bench/load/load-phase.js';
import { readTimestampMicros } from '../../bench/load/message-body.js';
import { formatOpTrace, parseOpTrace } from '../../bench/load/op-trace.js';
import { freePort } from '../support/ports.js';

const workerEntry = fileURLToPath(new URL('../../dist/bench/load/load-worker.js', import.meta.url));

interface FakeSqs {
  readonly server: Server;
  readonly endpoint: string;
  readonly actions: Map<string, number>;
  readonly sentBodies: string[];
}

/**
 * Answers like SQS: sends succeed, receives return what was sent (up to the asked count), or every
 * call fails; 'endless' receives always return a full batch, as a queue that never runs dry.
 */
async function startFakeSqs(mode: 'ok' | 'failing' | 'endless'): Promise<FakeSqs> {
  const actions = new Map<string, number>();
  const sentBodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const action = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
      actions.set(action, (actions.get(action) ?? 0) + 1);
      if (mode === 'failing') {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end('{"__type":"InternalError","message":"down"}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, any>;
      let answer: object = {};
      if (action === 'SendMessage') sentBodies.push(body.MessageBody as string);
      if (action === 'SendMessageBatch') {
        for (const e of body.Entries) sentBodies.push(e.MessageBody);
        answer = { Successful: [], Failed: [] };
      }
      if (action === 'ReceiveMessage') {
        const asked = body.MaxNumberOfMessages as number;
        const taken =
          mode === 'endless' ? Array.from({ length: asked }, () => 'x'.repeat(100)) : sentBodies.splice(0, asked);
        answer = { Messages: taken.map((Body, i) => ({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body })) };
      }
      if (action === 'DeleteMessageBatch') answer = { Successful: [], Failed: [] };
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(answer));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${port}`, actions, sentBodies };
}

function plan(fake: FakeSqs, overrides: Partial<PhasePlan>): PhasePlan {
  return {
    driver: {
      target: { kind: 'sqs', endpoints: [fake.endpoint], isNoop: false },
      queue: { name: 'q', url: `${fake.endpoint}/000000000000/q` },
      messageBytes: 100,
      batchSize: 10,
      partitions: 1,
      receiveWaitSeconds: 0,
    },
    producers: 3,
    consumers: 0,
    workerProcesses: 2,
    warmupMs: 0,
    windowMsMax: 60_000,
    recordsEndToEnd: false,
    producerLeadMessagesMax: null,
    serverPids: [process.pid],
    workerEntry,
    ...overrides,
  };
}

describe('a load phase over worker processes', () => {
  let fake: FakeSqs | null = null;
  afterEach(async () => {
    await new Promise((resolve) => fake?.server.close(resolve) ?? resolve(undefined));
    fake = null;
  });

  it('needs the compiled worker: run npm run build first', () => {
    expect(existsSync(workerEntry)).toBe(true);
  });

  it('producers send stamped batches until the phase is done, and every measured request is in the histogram', async () => {
    fake = await startFakeSqs('ok');
    const outcome = await runLoadPhase(plan(fake, { isDone: (t) => t.produced >= 500 }));
    expect(outcome.totals.produced).toBeGreaterThanOrEqual(500);
    expect(outcome.workerProcesses).toBe(2);
    expect(outcome.producedInWindow % 10).toBe(0);
    expect(outcome.produce.totalCount).toBe(outcome.producedInWindow / 10);
    expect(fake.actions.get('SendMessageBatch')).toBeGreaterThanOrEqual(50);
    expect(fake.sentBodies.every((b) => b.length === 100 && readTimestampMicros(b) !== null)).toBe(true);
    expect(outcome.totals.errors).toBe(0);
  });

  it('a traced phase returns one line per completed operation, inside the phase and naming its kind and messages', async () => {
    fake = await startFakeSqs('ok');
    const before = Date.now();
    const outcome = await runLoadPhase(
      plan(fake, { producers: 2, consumers: 1, isOpTraced: true, isDone: (t) => t.consumed >= 100 }),
    );
    const trace = parseOpTrace(
      formatOpTrace(outcome.windowStartEpochMs, outcome.windowEndEpochMs, outcome.opTraceLines),
    );
    const produced = trace.ops.filter((op) => op.kind === 'produce');
    const consumed = trace.ops.filter((op) => op.kind === 'consume');
    // Every completed operation is in the trace: the totals count the same ones.
    expect(produced.reduce((n, op) => n + op.messages, 0)).toBe(outcome.totals.produced);
    expect(consumed.reduce((n, op) => n + op.messages, 0)).toBe(outcome.totals.consumed);
    expect(trace.ops.every((op) => op.startEpochMs >= before)).toBe(true);
    expect(trace.windowStartEpochMs).toBeLessThanOrEqual(trace.windowEndEpochMs);
  });

  it('an untraced phase returns no trace lines', async () => {
    fake = await startFakeSqs('ok');
    const outcome = await runLoadPhase(plan(fake, { isDone: (t) => t.produced >= 50 }));
    expect(outcome.opTraceLines).toEqual([]);
  });

  it('producers and consumers together measure end-to-end latency from the stamped bodies', async () => {
    fake = await startFakeSqs('ok');
    const outcome = await runLoadPhase(
      plan(fake, {
        producers: 2,
        consumers: 2,
        recordsEndToEnd: true,
        producerLeadMessagesMax: 40,
        isDone: (t) => t.consumed >= 400,
      }),
    );
    expect(outcome.totals.consumed).toBeGreaterThanOrEqual(400);
    expect(outcome.consume.totalCount).toBeGreaterThan(0);
    expect(outcome.endToEnd.totalCount).toBe(outcome.consumedInWindow);
    expect(fake.actions.get('DeleteMessageBatch')).toBeGreaterThan(0);
  });

  it('a consume phase whose warm-up would drain the queue opens its window early and measures what follows', async () => {
    fake = await startFakeSqs('endless');
    const warmAt = 1000;
    const outcome = await runLoadPhase(
      plan(fake, {
        producers: 0,
        consumers: 2,
        // Far longer than the test may take: without isWarm the window would never open in time.
        warmupMs: 600_000,
        isWarm: (t) => t.consumed >= warmAt,
        // Only checked once the window is open: 2,000 more messages are consumed inside it.
        isDone: (t) => t.consumed >= warmAt + 2000,
      }),
    );
    expect(outcome.consumedInWindow).toBeGreaterThan(0);
    expect(outcome.consumedInWindow).toBeLessThanOrEqual(outcome.totals.consumed - warmAt + 20);
    expect(outcome.windowSeconds).toBeGreaterThan(0);
    expect(outcome.windowSeconds).toBeLessThan(600);
    expect(outcome.consume.totalCount).toBeGreaterThan(0);
  });

  it('a server that fails every call yields errors with the first one kept, not a hang', async () => {
    fake = await startFakeSqs('failing');
    const outcome = await runLoadPhase(plan(fake, { producers: 2, isDone: (t) => t.errors >= 10 }));
    expect(outcome.totals.errors).toBeGreaterThanOrEqual(10);
    expect(outcome.producedInWindow).toBe(0);
    expect(outcome.firstError).toContain('HTTP 500');
  });
});
