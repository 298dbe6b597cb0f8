/**
 * `raftq serve`: one node — the cluster runtime, the admin port and the SQS gateway over the
 * queue layer — until SIGTERM or SIGINT, which stop accepting, drain in-flight requests, hand
 * leadership over if this node leads, and exit 0.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { startAdminServer, type AdminServer } from '../admin/admin-server.js';
import { ClusterNode } from '../cluster/cluster-node.js';
import { parseHostPort } from '../cluster/node-config.js';
import { QueueService, type QueueServiceOptions } from '../queue/queue-service.js';
import { cachedReceiveScanSlot } from '../queue/receive-scan-slot.js';
import { startSqsServer, type SqsServer } from '../sqs/sqs-server.js';
import { armNodeAssert, failpointQueueService } from './serve-failpoints.js';
import { resolveServeOptions, type ServeOptions } from './serve-options.js';
import { startStateUpkeep } from './state-upkeep.js';

const reaperIntervalMsDefault = 1_000;

export async function serveCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const options = resolveServeOptions(argv, env);
  const logger = pino({ level: options.logLevel, base: { node: options.node.id } });
  let node: ClusterNode | null = null;
  let isStopping = false;
  const fatal = (error: unknown): void => {
    logger.fatal({ err: error }, 'fatal error; exiting');
    process.exit(1);
  };
  node = await ClusterNode.open({ config: options.node, logger, onFatal: fatal });
  if (options.failpoint !== null) logger.warn({ failpoint: options.failpoint }, 'running with a test failpoint: this node has a bug on purpose');
  if (options.failpoint === 'node-assert') armNodeAssert(options.node.dataDir, logger);
  const admin = await startAdmin(options, node, logger);
  const gateway = await startGateway(options, node, logger);
  logger.info(
    { id: options.node.id, sqs: options.sqsListen, admin: options.adminListen, raft: options.node.raftListen, dataDir: options.node.dataDir },
    'raftq node serving',
  );

  const shutdown = (signal: string): void => {
    if (isStopping) return;
    isStopping = true;
    logger.info({ signal }, 'shutting down: draining requests');
    const started = Date.now();
    void (async () => {
      await gateway.close();
      await node.stop({ transferLeadership: true });
      await admin.close();
      logger.info({ durationMs: Date.now() - started }, 'shut down');
      logger.flush?.();
      process.exit(0);
    })().catch(fatal);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function startAdmin(options: ServeOptions, node: ClusterNode, logger: Logger): Promise<AdminServer> {
  const { host, port } = parseHostPort('admin-listen', options.adminListen);
  return startAdminServer({ host, port, node, logger, isDebugEnabled: options.isDebugEnabled, clusterSecret: options.node.clusterSecret, adminToken: options.adminToken });
}

interface Gateway {
  close(): Promise<void>;
}

/** The SQS endpoint over the queue layer; the leader also runs the reaper on its tick. */
async function startGateway(options: ServeOptions, node: ClusterNode, logger: Logger): Promise<Gateway> {
  const queueLogger = logger.child({ layer: 'queue' });
  const queueOptions: QueueServiceOptions = {
    executor: node,
    accountId: '000000000000',
    region: 'us-east-1',
    scheduler: {
      setTimerMs: (delayMs, fn) => {
        const timer = setTimeout(fn, delayMs);
        return () => clearTimeout(timer);
      },
    },
    newId: () => randomUUID(),
    // Each voter starts its receives at its own point of a standard queue's head (receive-scan-slot.ts).
    receiveScanSlot: cachedReceiveScanSlot(node.id, () => node.membership().confState.voters),
    logger: { info: (fields, message) => queueLogger.info(fields, message), warn: (fields, message) => queueLogger.warn(fields, message) },
  };
  const queueService = options.failpoint === null ? new QueueService(queueOptions) : failpointQueueService(queueOptions, options.failpoint, node);
  const { host, port } = parseHostPort('sqs-listen', options.sqsListen);
  const sqsLogger = logger.child({ layer: 'sqs' });
  const server: SqsServer = await startSqsServer({
    host,
    port,
    queueService,
    ...(options.credentialsFile === null ? {} : { credentialsFile: options.credentialsFile }),
    ...(options.sqsTls === null ? {} : { tls: { certPem: readFileSync(options.sqsTls.certFile), keyPem: readFileSync(options.sqsTls.keyFile) } }),
    logger: sqsLogger,
    clock: node.clock,
  });
  // Only the leader reaps and steps move tasks (DESIGN.md §4): followers never propose cleanup.
  const upkeep = startStateUpkeep({ node, queueService, reaperIntervalMs: options.reaperIntervalMs ?? reaperIntervalMsDefault, logger: logger.child({ layer: 'upkeep' }) });
  return {
    close: async () => {
      await upkeep.close();
      await server.close();
      queueService.close();
    },
  };
}
