/**
 * startTestNode(): one raftq node inside the calling process, for a user's tests. It is the node
 * `raftq serve` runs — the same queue service behind the same SQS gateway, so every answer and
 * every timing rule is the production one — on a free loopback port, with a clock the test moves.
 *
 * Where the transactions go:
 * - by default, into a memory engine through the storage layer's one-replica executor (the same
 *   apply step a cluster runs, without the Raft log): nothing touches the disk and it starts in
 *   milliseconds;
 * - with `dataDir`, into a one-voter Raft cluster node over LevelDB in that directory (Raft's
 *   gRPC port on 127.0.0.1 too): what survives a stop is there for the next node on it.
 *
 * The reaper (retention, deleted queues) and message move tasks run on each advanceClock() on the
 * manual clock, and every reaperIntervalMs on the real one, as the leader's upkeep does.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import pino, { type Level, type Logger } from 'pino';
import { randomFillSync } from 'node:crypto';
import type { TxnExecutor } from '../storage/txn.js';
import { LocalTxnExecutor } from '../storage/local-txn-executor.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { MvccStore } from '../storage/mvcc-store.js';
import { ClusterNode } from '../cluster/cluster-node.js';
import { nodeConfigDefaults, validateNodeConfig } from '../cluster/node-config.js';
import { QueueService } from '../queue/queue-service.js';
import { buildQueueUrl } from '../sqs/queue-url.js';
import { defaultAccountId, startSqsServer, type SqsServer } from '../sqs/sqs-server.js';
import { SystemClock } from '../base/clock.js';
import { TimeOrderedIds } from '../base/time-ordered-ids.js';
import { ManualTestClock, RealTestClock, type TestClock } from './test-clock.js';
import { impliedNewQueueKeys } from '../queue/implied-new-keys.js';

export interface TestNodeOptions {
  /** 'manual' (default): time moves only by advanceClock(). 'real': the host's clock. */
  readonly clock?: 'manual' | 'real';
  /** Where the manual clock starts, in ms since the epoch (default: the host's time now). */
  readonly startAtMs?: number;
  /** Keep the node's state in this directory (LevelDB, a one-voter Raft cluster) instead of in memory. */
  readonly dataDir?: string;
  /** The node's log, as pino levels (default 'silent'). */
  readonly logLevel?: Level | 'silent';
  /** How often the reaper runs on the real clock (default 1000 ms, as `raftq serve`). */
  readonly reaperIntervalMs?: number;
}

export interface TestNode {
  /** http://127.0.0.1:PORT, for any SQS client. */
  readonly endpoint: string;
  /** An SQS client pointed at this node (destroyed by stop()). */
  readonly client: SQSClient;
  /** The URL the node gives the queue `name` (whether or not it exists yet). */
  queueUrl(name: string): string;
  /** The node's clock, in ms since the epoch. */
  nowMs(): number;
  /**
   * Moves the manual clock `ms` forward: visibility timeouts, delays, retention and long polls
   * due by then lapse now; resolves once the reaper and move tasks have had their turn.
   */
  advanceClock(ms: number): Promise<void>;
  /** Closes the port, ends long polls, stops the node and frees everything it held. */
  stop(): Promise<void>;
}

const testNodeId = 'test-node';
const reaperIntervalMsDefault = 1_000;
const leaderWaitMs = 10_000;

interface Executor {
  readonly executor: TxnExecutor;
  close(): Promise<void>;
}

export async function startTestNode(options: TestNodeOptions = {}): Promise<TestNode> {
  const clock: TestClock =
    options.clock === 'real' ? new RealTestClock() : new ManualTestClock(options.startAtMs ?? Date.now());
  const logger = pino({ level: options.logLevel ?? 'silent', base: { node: testNodeId } });
  let fatalError: unknown;
  const backend =
    options.dataDir === undefined
      ? await openMemoryExecutor(clock)
      : await openClusterExecutor(options.dataDir, clock, logger, (error) => (fatalError ??= error));
  const queueLogger = logger.child({ layer: 'queue' });
  // As `raftq serve` mints them (serve-command.ts): in order of the host's clock, whatever the node's.
  const ids = new TimeOrderedIds(new SystemClock(), randomFillSync);
  const queueService = new QueueService({
    executor: backend.executor,
    accountId: defaultAccountId,
    region: 'us-east-1',
    scheduler: clock,
    newId: () => ids.next(),
    logger: {
      info: (fields, message) => queueLogger.info(fields, message),
      warn: (fields, message) => queueLogger.warn(fields, message),
    },
  });
  let server: SqsServer;
  try {
    server = await startSqsServer({
      host: '127.0.0.1',
      port: 0,
      queueService,
      logger: logger.child({ layer: 'sqs' }),
      // Signatures are dated by the client's real clock, so they are checked against the real one.
      clock: new SystemClock(),
    });
  } catch (error) {
    queueService.close();
    await backend.close();
    throw error;
  }
  const endpoint = `http://127.0.0.1:${server.port}`;
  const client = new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

  const upkeepAbort = new AbortController();
  let upkeepTail: Promise<void> = Promise.resolve();
  const runUpkeep = (): Promise<void> => {
    upkeepTail = upkeepTail.then(async () => {
      if (upkeepAbort.signal.aborted) return;
      try {
        await queueService.sweepReaper({ signal: upkeepAbort.signal });
        if (!upkeepAbort.signal.aborted) await queueService.stepMoveTasks();
      } catch (error) {
        if (!upkeepAbort.signal.aborted) logger.warn({ err: error }, 'test node upkeep failed');
      }
    });
    return upkeepTail;
  };
  const upkeepTimer = clock.isManual
    ? undefined
    : setInterval(() => void runUpkeep(), options.reaperIntervalMs ?? reaperIntervalMsDefault);

  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    client,
    queueUrl: (name) =>
      buildQueueUrl({ host: `127.0.0.1:${server.port}`, accountId: defaultAccountId, queueName: name }),
    nowMs: () => backend.executor.nowMs(),
    async advanceClock(ms) {
      if (stopped !== undefined) throw new Error('advanceClock on a stopped test node');
      clock.advance(ms);
      await runUpkeep();
    },
    stop() {
      stopped ??= (async () => {
        clearInterval(upkeepTimer);
        upkeepAbort.abort();
        await upkeepTail;
        client.destroy();
        await server.close();
        queueService.close();
        clock.cancelAll();
        await backend.close();
        if (fatalError !== undefined) throw fatalError;
      })();
      return stopped;
    },
  };
}

async function openMemoryExecutor(clock: TestClock): Promise<Executor> {
  const engine = new MemoryEngine();
  const store = await MvccStore.open(engine, { impliedNewKeys: impliedNewQueueKeys });
  return { executor: new LocalTxnExecutor({ store, clock }), close: () => engine.close() };
}

async function openClusterExecutor(
  dataDir: string,
  clock: TestClock,
  logger: Logger,
  onFatal: (error: unknown) => void,
): Promise<Executor> {
  // Port 0 everywhere: the one voter never dials its own address, and nothing else does.
  const config = validateNodeConfig({
    ...nodeConfigDefaults(),
    id: testNodeId,
    dataDir,
    raftListen: '127.0.0.1:0',
    peers: { [testNodeId]: '127.0.0.1:0' },
  });
  const node = await ClusterNode.open({
    config,
    logger,
    wallClock: clock,
    onFatal,
    isProcessMetricsOn: false,
    stateHints: { impliedNewKeys: impliedNewQueueKeys },
  });
  try {
    await node.waitForLeader(leaderWaitMs);
  } catch (error) {
    await node.close();
    throw error;
  }
  return { executor: node, close: () => node.close() };
}
