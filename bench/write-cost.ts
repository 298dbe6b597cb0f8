/**
 * What one produced and one consumed message cost the queue layer: keys and bytes written
 * through transactions, and CPU, over the real storage layer (MVCC store, OCC apply step) on
 * LevelDB in one process — no Raft, no HTTP. Prefills a backlog with SendMessageBatch(10), then
 * drains it with ReceiveMessage(10) + DeleteMessageBatch from several concurrent consumers, and
 * reports each phase per message. Also the time to build the receive index of the backlog.
 *
 * Engine reads (iterators opened, point reads) are counted too: each is a LevelDB seek.
 *
 *   npm run bench:write-cost -- [--messages N] [--body-bytes B] [--consumers C] [--fifo] [--engine level|memory] [--cpu-prof-dir DIR] [--skip-consume] [--consume-limit N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { SystemClock } from '../src/base/clock.js';
import { TimeOrderedIds } from '../src/base/time-ordered-ids.js';
import { QueueService } from '../src/queue/queue-service.js';
import type { SendEntry } from '../src/queue/queue-api.js';
import type { Engine } from '../src/storage/engine.js';
import { LevelEngine } from '../src/storage/level-engine.js';
import { LocalTxnExecutor } from '../src/storage/local-txn-executor.js';
import { MemoryEngine } from '../src/storage/memory-engine.js';
import { MvccStore } from '../src/storage/mvcc-store.js';
import { impliedNewQueueKeys } from '../src/queue/implied-new-keys.js';
import { drainQueue } from './queue-drain.js';
import { countingEngine, EngineTally } from './write-cost/engine-tally.js';
import { WriteTally } from './write-cost/write-tally.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    'body-bytes': { type: 'string', default: '1024' },
    consumers: { type: 'string', default: '8' },
    fifo: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'level' },
    'cpu-prof-dir': { type: 'string' },
    /** Only produce and time the index build (a backlog of a million takes long to drain). */
    'skip-consume': { type: 'boolean', default: false },
    /** Consume this many messages, not the whole backlog (the cost of consuming from a large one). */
    'consume-limit': { type: 'string' },
  },
});
const messageCount = Number(values.messages);
const body = 'x'.repeat(Number(values['body-bytes']));
const consumers = Number(values.consumers);
const isFifo = values.fifo === true;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'raftq-write-cost-'));
  const engine: Engine = values.engine === 'memory' ? new MemoryEngine() : await LevelEngine.open(dir);
  const reads = new EngineTally();
  let entryBytesTotal = 0;
  const executor = new LocalTxnExecutor({
    store: await MvccStore.open(countingEngine(engine, reads), { impliedNewKeys: impliedNewQueueKeys }),
    clock: new SystemClock(),
    isEncodingRoundTrip: true,
    onEntryEncoded: (entryBytes) => (entryBytesTotal += entryBytes),
  });
  // Time-ordered ids, as a node mints them (serve-command.ts): rows sent together lie together.
  const ids = new TimeOrderedIds(new SystemClock(), randomFillSync);
  const tally = new WriteTally();
  executor.onApplied((writes) => tally.add(writes));
  const service = new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    newId: () => ids.next(),
    scheduler: {
      setTimerMs: (delayMs, fn) => {
        const t = setTimeout(fn, delayMs);
        return () => clearTimeout(t);
      },
    },
  });
  const queue = isFifo ? 'cost.fifo' : 'cost';
  await service.createQueue({ name: queue, attributes: isFifo ? { FifoQueue: 'true' } : {}, tags: {} });
  console.log(
    `${isFifo ? 'FIFO' : 'standard'} queue, ${messageCount} messages of ${body.length} B, ${consumers} consumers, ${values.engine} engine`,
  );

  const entryBytes = () => entryBytesTotal;
  const produce = await measure(tally, reads, entryBytes, async () => {
    for (let i = 0; i < messageCount; i += 10) {
      const entries: SendEntry[] = Array.from({ length: Math.min(10, messageCount - i) }, (_, j) => ({
        entryId: `e${j}`,
        body,
        messageAttributes: {},
        systemAttributes: {},
        ...(isFifo ? { messageGroupId: `g${(i + j) % 64}`, messageDeduplicationId: `d${i + j}` } : {}),
      }));
      await service.sendMessages(queue, entries, { senderId: 'bench' });
      if (i % 10_000 === 0) process.stderr.write(`\r  prefilled ${i} / ${messageCount}`);
    }
    process.stderr.write('\n');
    return messageCount;
  });
  report('produce (SendMessageBatch of 10)', produce);

  // A node that has never served this queue (a new leader): its first receive builds the queue index.
  const fresh = new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    newId: () => ids.next(),
    scheduler: {
      setTimerMs: (delayMs, fn) => {
        const t = setTimeout(fn, delayMs);
        return () => clearTimeout(t);
      },
    },
  });
  const rebuildCpu = process.cpuUsage();
  const rebuildStartedMs = performance.now();
  const [first] = await profiled('rebuild', () =>
    fresh.receiveMessages(queue, { maxMessages: 1, waitTimeSeconds: 0, visibilityTimeoutSeconds: 0 }),
  );
  const rebuildMs = performance.now() - rebuildStartedMs;
  const rebuildCpuUs = process.cpuUsage(rebuildCpu);
  fresh.close();
  console.log(
    `first receive on a node without the index (builds it from ${messageCount} messages): ${rebuildMs.toFixed(0)} ms, CPU ${((rebuildCpuUs.user + rebuildCpuUs.system) / 1000).toFixed(0)} ms, ${first === undefined ? 'no message' : 'got a message'}, heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MiB`,
  );

  if (values['skip-consume'] === true) {
    service.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const limit = values['consume-limit'] === undefined ? Number.POSITIVE_INFINITY : Number(values['consume-limit']);
  // The consuming node's own index: built (served from its first page on) before the consume is measured.
  const warmStartedMs = performance.now();
  await service.receiveMessages(queue, { maxMessages: 1, waitTimeSeconds: 0, visibilityTimeoutSeconds: 0 });
  while (service.indexBuildsRunning > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(`consuming node's index built in ${(performance.now() - warmStartedMs).toFixed(0)} ms`);
  const consume = await profiled('consume', () =>
    measure(tally, reads, entryBytes, () => drainQueue(service, queue, consumers, limit)),
  );
  report('consume (ReceiveMessage of 10 + DeleteMessageBatch)', consume);
  service.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `body` under the V8 profiler when --cpu-prof-dir is given, and writes its profile there. */
async function profiled<T>(name: string, body: () => Promise<T>): Promise<T> {
  const dir = values['cpu-prof-dir'];
  if (dir === undefined) return body();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await body();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    const file = join(dir, `write-cost-${name}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    console.log(`${name} profile: ${file}`);
  }
}

interface Phase {
  readonly messages: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly keys: number;
  readonly bytes: number;
  readonly pointReads: number;
  readonly iteratorsOpened: number;
  readonly rowsPut: number;
  readonly rowsDeleted: number;
  readonly batchesWritten: number;
  readonly byFamily: ReadonlyMap<string, number>;
  /** Bytes of the transactions as Raft entries carry them (each committed alone here; a node batches several per entry). */
  readonly entryBytes: number;
}

async function measure(
  tally: WriteTally,
  reads: EngineTally,
  entryBytes: () => number,
  body: () => Promise<number>,
): Promise<Phase> {
  tally.reset();
  reads.reset();
  const entryBytesBefore = entryBytes();
  const cpuBefore = process.cpuUsage();
  const startedMs = performance.now();
  const messages = await body();
  const wallMs = performance.now() - startedMs;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    messages,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    keys: tally.keys,
    bytes: tally.bytes,
    entryBytes: entryBytes() - entryBytesBefore,
    pointReads: reads.pointReads,
    iteratorsOpened: reads.iteratorsOpened,
    rowsPut: reads.rowsPut,
    rowsDeleted: reads.rowsDeleted,
    batchesWritten: reads.batchesWritten,
    byFamily: new Map(tally.byFamily),
  };
}

function report(name: string, phase: Phase): void {
  const per = (n: number) => (n / Math.max(1, phase.messages)).toFixed(2);
  console.log(
    `${name}: ${phase.messages} messages, ${Math.round((phase.messages / phase.wallMs) * 1000)} msgs/s, CPU ${((phase.cpuMs / Math.max(1, phase.messages)) * 1000).toFixed(0)} µs/msg`,
  );
  console.log(`  per message: ${per(phase.keys)} keys written, ${per(phase.bytes)} bytes written (key + value)`);
  console.log(
    `  replicated entry bytes per message: ${per(phase.entryBytes)} (what the Raft log writes and each follower receives)`,
  );
  console.log(
    `  engine reads per message: ${per(phase.iteratorsOpened)} iterators opened (a seek each), ${per(phase.pointReads)} point reads`,
  );
  console.log(
    `  engine writes per message: ${per(phase.rowsPut)} rows put, ${per(phase.rowsDeleted)} rows deleted, ${per(phase.batchesWritten)} batches (garbage collection, not run here, later removes each deletion marker and the version it hides)`,
  );
  console.log(`  keys by family: ${[...phase.byFamily].map(([family, n]) => `${family} ${per(n)}`).join(', ')}`);
}

await main();
