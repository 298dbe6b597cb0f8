/**
 * What one node needs to run: identity, addresses, data directory, security and the few tuning
 * knobs tests turn down (snapshot threshold, tick length). validateNodeConfig() rejects
 * combinations that cannot work before anything is opened.
 */
import { raftLimits } from '../base/limits.js';
import { InvalidNodeConfigError } from './errors.js';

export interface NodeConfig {
  readonly id: string;
  readonly dataDir: string;
  /** host:port the Raft/cluster gRPC server listens on. */
  readonly raftListen: string;
  /**
   * Raft address of each node this node should reach, itself included. For a new cluster it is
   * the bootstrap membership; addresses given here override those learned from the log (so that a
   * test harness can route one node's traffic to a peer through a proxy).
   */
  readonly peers: Readonly<Record<string, string>>;
  /** Start as a node that joins an existing cluster (`raftq members add`), not as a founder. */
  readonly join: boolean;
  readonly clusterSecret: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string; readonly caFile: string | null } | null;
  readonly tickMs: number;
  readonly electionTimeoutTicks: number;
  readonly heartbeatTicks: number;
  readonly snapshotThresholdEntries: number;
  readonly snapshotCatchUpEntries: number;
  readonly groupId: number;
}

/** The single Raft group of today (docs/architecture/cluster.md); 0 stays free to mean "unset" on the wire. */
export const defaultGroupId = 1;

export function nodeConfigDefaults(): Omit<NodeConfig, 'id' | 'dataDir' | 'raftListen' | 'peers'> {
  return {
    join: false,
    clusterSecret: '',
    tls: null,
    tickMs: raftLimits.tickMs.value,
    electionTimeoutTicks: raftLimits.electionTimeoutTicks.value,
    heartbeatTicks: raftLimits.heartbeatTicks.value,
    snapshotThresholdEntries: raftLimits.snapshotThresholdEntries.value,
    snapshotCatchUpEntries: raftLimits.snapshotCatchUpEntries.value,
    groupId: defaultGroupId,
  };
}

const nodeIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** Splits "host:port" (IPv6 in brackets) and checks the port. */
export function parseHostPort(field: string, address: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address);
  if (match === null) throw new InvalidNodeConfigError(field, `expected HOST:PORT, got "${address}"`);
  const port = Number(match[2]);
  if (port > 65_535) throw new InvalidNodeConfigError(field, `port ${port} is out of range`);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** Parses "n1=127.0.0.1:9326,n2=…" into an id → address map. */
export function parsePeerList(field: string, text: string): Record<string, string> {
  const peers: Record<string, string> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new InvalidNodeConfigError(field, `expected ID=HOST:PORT, got "${item}"`);
    const id = item.slice(0, eq);
    const address = item.slice(eq + 1);
    if (!nodeIdPattern.test(id))
      throw new InvalidNodeConfigError(field, `node id "${id}" must be 1-64 of [A-Za-z0-9_.-]`);
    parseHostPort(field, address);
    if (peers[id] !== undefined) throw new InvalidNodeConfigError(field, `node ${id} is listed twice`);
    peers[id] = address;
  }
  return peers;
}

export function validateNodeConfig(config: NodeConfig): NodeConfig {
  if (!nodeIdPattern.test(config.id))
    throw new InvalidNodeConfigError('id', `"${config.id}" must be 1-64 of [A-Za-z0-9_.-]`);
  if (config.dataDir === '') throw new InvalidNodeConfigError('data-dir', 'must not be empty');
  parseHostPort('raft-listen', config.raftListen);
  for (const [id, address] of Object.entries(config.peers)) parseHostPort(`peers.${id}`, address);
  if (!config.join && config.peers[config.id] === undefined) {
    throw new InvalidNodeConfigError(
      'peers',
      `the peer list must include this node (${config.id}) unless it joins an existing cluster`,
    );
  }
  if (config.tickMs < 1) throw new InvalidNodeConfigError('tick-ms', 'must be at least 1');
  if (config.electionTimeoutTicks <= config.heartbeatTicks)
    throw new InvalidNodeConfigError('election-timeout-ticks', 'must exceed heartbeat ticks');
  if (config.snapshotThresholdEntries < 1)
    throw new InvalidNodeConfigError('snapshot-threshold-entries', 'must be at least 1');
  if (config.snapshotCatchUpEntries < 0)
    throw new InvalidNodeConfigError('snapshot-catch-up-entries', 'must not be negative');
  if (config.tls !== null && (config.tls.certFile === '' || config.tls.keyFile === '')) {
    throw new InvalidNodeConfigError('tls', '--tls-cert and --tls-key go together');
  }
  return config;
}
