/**
 * The queue layer alone, in one process: QueueService over the storage layer's LocalTxnExecutor
 * on a memory engine (no Raft, no HTTP, no fsync). It shows what the queue transactions cost by
 * themselves: SendMessageBatch(10), SendMessage, and ReceiveMessage(10) + DeleteMessageBatch, for
 * a standard and a FIFO queue, sequentially (one request at a time) and with several concurrent
 * consumers. Run: npm run build && node dist/bench/queue-layer.js [messages]
 */
import { randomUUID } from 'node:crypto';
import { SystemClock } from '../src/base/clock.js';
import { QueueService } from '../src/queue/queue-service.js';
import type { SendEntry } from '../src/queue/queue-api.js';
import { LocalTxnExecutor } from '../src/storage/local-txn-executor.js';
import { MemoryEngine } from '../src/storage/memory-engine.js';
import { MvccStore } from '../src/storage/mvcc-store.js';
import { drainQueue } from './queue-drain.js';

const messageCount = Number(process.argv[2] ?? 10_000);
const body = 'x'.repeat(256);

async function makeService(): Promise<QueueService> {
  const executor = new LocalTxnExecutor({ store: await MvccStore.open(new MemoryEngine()), clock: new SystemClock() });
  return new QueueService({
    executor,
    accountId: '000000000000',
    region: 'us-east-1',
    newId: () => randomUUID(),
    scheduler: {
      setTimerMs: (delayMs, fn) => {
        const timer = setTimeout(fn, delayMs);
        return () => clearTimeout(timer);
      },
    },
  });
}

function entryOf(i: number, isFifo: boolean): SendEntry {
  const fifo = isFifo ? { messageGroupId: `g${i % 50}`, messageDeduplicationId: `d${i}` } : {};
  return { entryId: `e${i % 10}`, body, messageAttributes: {}, systemAttributes: {}, ...fifo };
}

function rate(count: number, startedMs: number): string {
  const elapsedMs = performance.now() - startedMs;
  return `${Math.round((count / elapsedMs) * 1000)} msg/s (${(elapsedMs / count).toFixed(3)} ms/msg)`;
}

async function run(kind: 'standard' | 'fifo', consumers: number): Promise<void> {
  const service = await makeService();
  const isFifo = kind === 'fifo';
  const queue = isFifo ? 'bench.fifo' : 'bench';
  await service.createQueue({ name: queue, attributes: isFifo ? { FifoQueue: 'true' } : {}, tags: {} });
  let startedMs = performance.now();
  for (let i = 0; i < messageCount; i += 10) {
    await service.sendMessages(
      queue,
      Array.from({ length: 10 }, (_, j) => entryOf(i + j, isFifo)),
      { senderId: 'bench' },
    );
  }
  const batchSend = rate(messageCount, startedMs);
  startedMs = performance.now();
  const received = await drainQueue(service, queue, consumers);
  const receiveDelete = rate(received, startedMs);
  const singles = Math.min(2_000, messageCount);
  startedMs = performance.now();
  for (let i = 0; i < singles; i++)
    await service.sendMessages(queue, [entryOf(messageCount + i, isFifo)], { senderId: 'bench' });
  const singleSend = rate(singles, startedMs);
  console.log(
    `${kind.padEnd(8)} consumers=${consumers}  SendMessageBatch(10) ${batchSend}  ReceiveMessage(10)+DeleteMessageBatch ${receiveDelete} [${received} received]  SendMessage ${singleSend}`,
  );
  service.close();
}

for (const kind of ['standard', 'fifo'] as const) {
  for (const consumers of [1, 8]) await run(kind, consumers);
}
