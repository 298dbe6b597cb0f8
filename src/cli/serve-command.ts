/**
 * `raftq serve`: one node — the cluster runtime, the admin port and the SQS gateway over the
 * queue layer — until SIGTERM or SIGINT, which stop accepting, drain in-flight requests, hand
 * leadership over if this node leads, and exit 0.
 */
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { startAdminServer, type AdminServer } from '../admin/admin-server.js';
import { startMetricsServer, type MetricsServer } from '../admin/metrics-server.js';
import { ClusterNode } from '../cluster/cluster-node.js';
import { parseHostPort } from '../cluster/node-config.js';
import { ForwardingQueueOperations } from '../forwarding/forwarding-queue-operations.js';
import { queueOpHandler } from '../forwarding/queue-op-server.js';
import type { QueueOperations } from '../queue/queue-operations.js';
import { QueueService, type QueueServiceOptions } from '../queue/queue-service.js';
import { startSqsServer, type SqsServer } from '../sqs/sqs-server.js';
import { armNodeAssert, failpointQueueService } from './serve-failpoints.js';
import { missingServeNodeFlags, serveNodeFlags } from './serve-node-flags.js';
import { resolveServeOptions, type ServeOptions } from './serve-options.js';
import { listeningOn, openingDataDir } from './start-up-errors.js';
import { startStateUpkeep } from './state-upkeep.js';
import { registerQueueMetrics } from '../admin/queue-metrics.js';
import { TimeOrderedIds } from '../base/time-ordered-ids.js';
import type { SqsRequestObserver } from '../sqs/request-observer.js';
import { gatewayActions } from '../sqs/sqs-actions.js';
import { impliedNewQueueKeys } from '../queue/implied-new-keys.js';

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
  // Each step that binds an address or opens the data directory says, if it fails, which flag to fix.
  node = await openingDataDir(() =>
    listeningOn('raft-listen', options.node.raftListen, () =>
      ClusterNode.open({
        config: options.node,
        logger,
        onFatal: fatal,
        stateHints: { impliedNewKeys: impliedNewQueueKeys },
      }),
    ),
  );
  if (options.failpoint !== null)
    logger.warn({ failpoint: options.failpoint }, 'running with a test failpoint: this node has a bug on purpose');
  if (options.failpoint === 'node-assert') armNodeAssert(options.node.dataDir, logger);
  // Message ids, receipt tokens and txn ids in minting order, so rows sent together lie together.
  const ids = new TimeOrderedIds(node.clock, randomFillSync);
  const queueService = openQueueService(options, node, ids, logger);
  registerQueueMetrics(node.metrics.registry, queueService, {
    queuesMax: options.metricsQueuesMax,
    onError: (error) => logger.warn({ err: error }, 'queue metrics: could not read the queues'),
  });
  const admin = await listeningOn('admin-listen', options.adminListen, () =>
    startAdmin(options, node, queueService, logger),
  );
  const metrics =
    options.metricsListen === null
      ? null
      : await listeningOn('metrics-listen', options.metricsListen, () =>
          startMetrics(options.metricsListen as string, node, logger),
        );
  // The leader runs the operations followers forward; the gateway sends this node's there when it follows.
  node.serveForwardedOps(queueOpHandler(queueService));
  // A node with a test failpoint answers from its own (broken) service whether it leads or not, so
  // the fault-injection harness sees the bug through its gateway.
  const queueOperations: QueueOperations =
    options.failpoint === null
      ? new ForwardingQueueOperations({ local: queueService, node, newId: () => ids.next() })
      : queueService;
  const gateway = await listeningOn('sqs-listen', options.sqsListen, () =>
    startGateway(options, node, queueService, queueOperations, logger),
  );
  logger.info(
    {
      id: options.node.id,
      sqs: options.sqsListen,
      admin: options.adminListen,
      metrics: options.metricsListen,
      raft: options.node.raftListen,
      dataDir: options.node.dataDir,
    },
    'raftq node serving',
  );
  const missingNodeFlags = missingServeNodeFlags(process.execArgv, env['NODE_OPTIONS']);
  if (missingNodeFlags.length > 0)
    logger.info(
      { missingNodeFlags, nodeOptions: serveNodeFlags.join(' ') },
      'node was started without the flags raftq runs best with: start it as `node FLAGS dist/src/cli/main.js serve` or set NODE_OPTIONS (docs/OPERATIONS.md)',
    );

  const shutdown = (signal: string): void => {
    if (isStopping) return;
    isStopping = true;
    logger.info({ signal }, 'shutting down: draining requests');
    const started = Date.now();
    void (async () => {
      await gateway.close();
      await node.stop({ transferLeadership: true });
      await metrics?.close();
      await admin.close();
      logger.info({ durationMs: Date.now() - started }, 'shut down');
      logger.flush?.();
      process.exit(0);
    })().catch(fatal);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function startAdmin(
  options: ServeOptions,
  node: ClusterNode,
  queueService: QueueService,
  logger: Logger,
): Promise<AdminServer> {
  const { host, port } = parseHostPort('admin-listen', options.adminListen);
  return startAdminServer({
    host,
    port,
    node,
    logger,
    isDebugEnabled: options.isDebugEnabled,
    clusterSecret: options.node.clusterSecret,
    adminToken: options.adminToken,
    queueService,
  });
}

function startMetrics(metricsListen: string, node: ClusterNode, logger: Logger): Promise<MetricsServer> {
  const { host, port } = parseHostPort('metrics-listen', metricsListen);
  return startMetricsServer({ host, port, registry: node.metrics.registry, logger });
}

interface Gateway {
  close(): Promise<void>;
}

function openQueueService(options: ServeOptions, node: ClusterNode, ids: TimeOrderedIds, logger: Logger): QueueService {
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
    newId: () => ids.next(),
    // No receive scan slot: followers forward receives, so every receive runs on the leader, from the head.
    logger: {
      info: (fields, message) => queueLogger.info(fields, message),
      warn: (fields, message) => queueLogger.warn(fields, message),
    },
  };
  return options.failpoint === null
    ? new QueueService(queueOptions)
    : failpointQueueService(queueOptions, options.failpoint, node);
}

/** The SQS endpoint over the queue layer; the leader also runs the reaper on its tick. */
async function startGateway(
  options: ServeOptions,
  node: ClusterNode,
  queueService: QueueService,
  queueOperations: QueueOperations,
  logger: Logger,
): Promise<Gateway> {
  const { host, port } = parseHostPort('sqs-listen', options.sqsListen);
  const sqsLogger = logger.child({ layer: 'sqs' });
  const server: SqsServer = await startSqsServer({
    host,
    port,
    queueService: queueOperations,
    ...(options.credentialsFile === null ? {} : { credentialsFile: options.credentialsFile }),
    ...(options.sqsTls === null
      ? {}
      : { tls: { certPem: readFileSync(options.sqsTls.certFile), keyPem: readFileSync(options.sqsTls.keyFile) } }),
    logger: sqsLogger,
    clock: node.clock,
    observer: sqsRequestObserver(node, options.isAccessLogOn ? logger.child({ layer: 'access' }) : undefined),
  });
  // Only the leader reaps and steps move tasks (docs/architecture/reaper.md): followers never propose cleanup.
  const upkeep = startStateUpkeep({
    node,
    queueService,
    reaperIntervalMs: options.reaperIntervalMs ?? reaperIntervalMsDefault,
    logger: logger.child({ layer: 'upkeep' }),
  });
  return {
    close: async () => {
      await upkeep.close();
      await server.close();
      // Followers' operations go elsewhere from now on ("not leader"): the service closes next.
      node.serveForwardedOps(null);
      queueService.close();
    },
  };
}

/** Counts every SQS request in /metrics and, with --access-log, logs it as one JSON line. */
function sqsRequestObserver(node: ClusterNode, accessLogger: Logger | undefined): SqsRequestObserver {
  return (record) => {
    // Only actions the gateway serves become label values: a request may name any string.
    const action =
      record.action !== undefined && Object.hasOwn(gatewayActions, record.action) ? record.action : 'unknown';
    node.metrics.noteSqsRequest(action, record.code, record.durationMs / 1000);
    accessLogger?.info(
      {
        action,
        queue: record.queueName ?? null,
        status: record.status,
        code: record.code,
        ms: Math.round(record.durationMs * 1000) / 1000,
      },
      'sqs request',
    );
  };
}
