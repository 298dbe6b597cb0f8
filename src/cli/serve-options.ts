/**
 * The flags of `raftq serve` (docs/OPERATIONS.md, "Running a node") and how they become a node configuration. With no
 * flags at all: a one-node cluster n1 with data in ./data, SQS on 127.0.0.1:9324, admin on 9325,
 * Raft on 9326.
 */
import { resolve } from 'node:path';
import {
  nodeConfigDefaults,
  parseHostPort,
  parsePeerList,
  validateNodeConfig,
  type NodeConfig,
} from '../cluster/node-config.js';
import { isLoopbackHost } from '../admin/admin-token.js';
import { booleanFlag, numberFlag, parseFlags, stringFlag, UsageError, type FlagSpec } from './flags.js';
import { failpointNames, isFailpointName, type FailpointName } from './failpoint-names.js';

export const serveFlags: readonly FlagSpec[] = [
  { name: 'id', kind: 'string', description: "This node's id", defaultText: 'n1' },
  {
    name: 'data-dir',
    kind: 'string',
    description: 'Directory for the Raft log (DIR/raft) and the state (DIR/state)',
    defaultText: './data',
  },
  { name: 'sqs-listen', kind: 'string', description: 'HOST:PORT of the SQS endpoint', defaultText: '127.0.0.1:9324' },
  {
    name: 'admin-listen',
    kind: 'string',
    description: 'HOST:PORT of /health /ready /status /metrics',
    defaultText: '127.0.0.1:9325',
  },
  {
    name: 'raft-listen',
    kind: 'string',
    description: 'HOST:PORT for Raft and cluster calls between nodes',
    defaultText: '127.0.0.1:9326',
  },
  {
    name: 'peers',
    kind: 'string',
    description: 'Every node of a new cluster, this one included: ID=HOST:PORT,…',
    defaultText: 'ID=RAFT-LISTEN',
  },
  {
    name: 'join',
    kind: 'boolean',
    description: 'Join an existing cluster (after `raftq members add`) instead of founding one',
  },
  { name: 'cluster-secret', kind: 'string', description: 'Shared secret every inter-node call must present' },
  { name: 'tls-cert', kind: 'string', description: 'PEM certificate for Raft/cluster gRPC (turns TLS on)' },
  { name: 'tls-key', kind: 'string', description: 'PEM private key of --tls-cert' },
  { name: 'tls-ca', kind: 'string', description: "PEM CA that signed every node's certificate (turns on mutual TLS)" },
  {
    name: 'admin-token',
    kind: 'string',
    description: 'Bearer token for every admin call but /health and /ready; needed when --admin-listen is not loopback',
  },
  {
    name: 'metrics-listen',
    kind: 'string',
    description: 'HOST:PORT serving only GET /metrics, without the admin token (for Prometheus scrapes)',
    defaultText: 'off',
  },
  { name: 'sqs-tls-cert', kind: 'string', description: 'PEM certificate for the SQS endpoint (turns HTTPS on)' },
  { name: 'sqs-tls-key', kind: 'string', description: 'PEM private key of --sqs-tls-cert' },
  { name: 'credentials-file', kind: 'string', description: 'JSON credentials; turns SigV4 verification on' },
  {
    name: 'access-log',
    kind: 'boolean',
    description: 'Log one JSON line per SQS request: action, queue, status, code, ms',
  },
  {
    name: 'metrics-queues-max',
    kind: 'number',
    description:
      'Queues with series of their own in /metrics (the first in name order); the rest are summed into queue="(other)"',
    defaultText: '100',
  },
  {
    name: 'log-level',
    kind: 'string',
    description: 'pino level: fatal, error, warn, info, debug, trace, silent',
    defaultText: 'info',
  },
  {
    name: 'reaper-interval-ms',
    kind: 'number',
    description: 'Reaper tick on the leader, in ms (retention, purged and deleted queues, expired rows)',
    defaultText: '1000',
  },
  {
    name: 'debug-endpoints',
    kind: 'boolean',
    description:
      'Enable admin debug calls (POST /debug/txn, /debug/clock-offset, /debug/snapshot) for tests and fault injection',
  },
  {
    name: 'snapshot-threshold-entries',
    kind: 'number',
    description: 'Applied entries between snapshots',
    defaultText: '10000',
  },
  {
    name: 'snapshot-catch-up-entries',
    kind: 'number',
    description: 'Entries kept behind a snapshot for slightly lagging followers',
    defaultText: '1000',
  },
  { name: 'tick-ms', kind: 'number', description: 'Length of one Raft tick', defaultText: '50' },
  { name: 'election-timeout-ticks', kind: 'number', description: 'Base election timeout in ticks', defaultText: '10' },
  {
    name: 'test-failpoint',
    kind: 'string',
    description: `Tests only: run with a bug on purpose (${failpointNames.join(', ')}); refused unless every listener is on loopback`,
  },
];

export interface ServeOptions {
  readonly node: NodeConfig;
  readonly sqsListen: string;
  readonly adminListen: string;
  /** '' when the admin port is on loopback and open to local callers. */
  readonly adminToken: string;
  /** HOST:PORT of the token-free metrics port, or null for none. */
  readonly metricsListen: string | null;
  readonly credentialsFile: string | null;
  /** HTTPS on the SQS endpoint, or null for HTTP. */
  readonly sqsTls: { readonly certFile: string; readonly keyFile: string } | null;
  readonly logLevel: string;
  readonly reaperIntervalMs: number | null;
  readonly isDebugEnabled: boolean;
  readonly isAccessLogOn: boolean;
  readonly metricsQueuesMax: number;
  /** A bug to run with, for the fault-injection harness only (serve-failpoints.ts). */
  readonly failpoint: FailpointName | null;
}

/** Queues with series of their own in /metrics by default (admin/queue-metrics.ts). */
const metricsQueuesMaxDefault = 100;

const logLevels = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function resolveServeOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ServeOptions {
  const { values, positionals } = parseFlags(argv, serveFlags, env, { allowConfigFile: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const id = stringFlag(values, 'id') ?? 'n1';
  const raftListen = stringFlag(values, 'raft-listen') ?? '127.0.0.1:9326';
  const sqsListen = stringFlag(values, 'sqs-listen') ?? '127.0.0.1:9324';
  const adminListen = stringFlag(values, 'admin-listen') ?? '127.0.0.1:9325';
  parseHostPort('sqs-listen', sqsListen);
  const adminToken = stringFlag(values, 'admin-token') ?? '';
  if (adminToken === '' && !isLoopbackHost(parseHostPort('admin-listen', adminListen).host)) {
    throw new UsageError(
      `--admin-listen ${adminListen} is not a loopback address: set --admin-token (or RAFTQ_ADMIN_TOKEN) so that only /health and /ready answer without it`,
    );
  }
  const metricsListen = stringFlag(values, 'metrics-listen') ?? null;
  if (metricsListen !== null) parseHostPort('metrics-listen', metricsListen);
  const peersText = stringFlag(values, 'peers');
  const join = booleanFlag(values, 'join');
  const peers = peersText === undefined ? (join ? {} : { [id]: raftListen }) : parsePeerList('peers', peersText);
  const certFile = stringFlag(values, 'tls-cert');
  const keyFile = stringFlag(values, 'tls-key');
  const caFile = stringFlag(values, 'tls-ca');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError('--tls-cert and --tls-key go together');
  if (caFile !== undefined && certFile === undefined) throw new UsageError('--tls-ca needs --tls-cert and --tls-key');
  const logLevel = stringFlag(values, 'log-level') ?? 'info';
  if (!logLevels.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...logLevels].join(', ')}`);
  const defaults = nodeConfigDefaults();
  const node = validateNodeConfig({
    ...defaults,
    id,
    dataDir: resolve(stringFlag(values, 'data-dir') ?? './data'),
    raftListen,
    peers,
    join,
    clusterSecret: stringFlag(values, 'cluster-secret') ?? '',
    tls: certFile === undefined || keyFile === undefined ? null : { certFile, keyFile, caFile: caFile ?? null },
    tickMs: numberFlag(values, 'tick-ms') ?? defaults.tickMs,
    electionTimeoutTicks: numberFlag(values, 'election-timeout-ticks') ?? defaults.electionTimeoutTicks,
    snapshotThresholdEntries: numberFlag(values, 'snapshot-threshold-entries') ?? defaults.snapshotThresholdEntries,
    snapshotCatchUpEntries: numberFlag(values, 'snapshot-catch-up-entries') ?? defaults.snapshotCatchUpEntries,
  });
  return {
    node,
    sqsListen,
    adminListen,
    adminToken,
    metricsListen,
    credentialsFile: stringFlag(values, 'credentials-file') ?? null,
    sqsTls: sqsTlsOf(stringFlag(values, 'sqs-tls-cert'), stringFlag(values, 'sqs-tls-key')),
    logLevel,
    reaperIntervalMs: numberFlag(values, 'reaper-interval-ms') ?? null,
    isDebugEnabled: booleanFlag(values, 'debug-endpoints'),
    isAccessLogOn: booleanFlag(values, 'access-log'),
    metricsQueuesMax: metricsQueuesMaxOf(numberFlag(values, 'metrics-queues-max')),
    failpoint: failpointOf(stringFlag(values, 'test-failpoint'), {
      'sqs-listen': sqsListen,
      'admin-listen': adminListen,
      'raft-listen': raftListen,
    }),
  };
}

function metricsQueuesMaxOf(value: number | undefined): number {
  if (value === undefined) return metricsQueuesMaxDefault;
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(`--metrics-queues-max must be an integer >= 0, got ${value}`);
  return value;
}

/** A failpoint breaks the node on purpose: only ever on a node no one else can reach. */
function failpointOf(name: string | undefined, listeners: Record<string, string>): FailpointName | null {
  if (name === undefined) return null;
  if (!isFailpointName(name)) throw new UsageError(`--test-failpoint must be one of ${failpointNames.join(', ')}`);
  for (const [flag, address] of Object.entries(listeners)) {
    const { host } = parseHostPort(flag, address);
    if (!isLoopbackHost(host))
      throw new UsageError(
        `--test-failpoint runs a node with a bug on purpose, for tests only: refused with --${flag} ${address}, which is not a loopback address`,
      );
  }
  return name;
}

function sqsTlsOf(certFile: string | undefined, keyFile: string | undefined): ServeOptions['sqsTls'] {
  if (certFile === undefined && keyFile === undefined) return null;
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError('--sqs-tls-cert and --sqs-tls-key go together');
  return { certFile, keyFile };
}
