import { join } from 'node:path';
import pino from 'pino';
import { ClusterNode } from '../../../src/cluster/cluster-node.js';
import { nodeConfigDefaults, type NodeConfig } from '../../../src/cluster/node-config.js';
import { encodeKey } from '../../../src/storage/key-codec.js';
import type { Txn } from '../../../src/storage/txn.js';
import { freePorts } from '../../support/ports.js';
import { makeTempDir } from '../../support/temp-dir.js';

/** Several ClusterNodes in this process, on loopback ports, for fast tests of the runtime. */
export class InProcessCluster {
  readonly nodes = new Map<string, ClusterNode>();
  private constructor(
    readonly dir: { path: string; cleanup: () => void },
    readonly peers: Record<string, string>,
    readonly overrides: Partial<NodeConfig>,
  ) {}

  static async start(count: number, overrides: Partial<NodeConfig> = {}): Promise<InProcessCluster> {
    const ports = await freePorts(count);
    const peers: Record<string, string> = {};
    ports.forEach((port, i) => (peers[`n${i + 1}`] = `127.0.0.1:${port}`));
    const cluster = new InProcessCluster(makeTempDir('cluster'), peers, overrides);
    await Promise.all(Object.keys(peers).map((id) => cluster.startNode(id)));
    return cluster;
  }

  config(id: string, extra: Partial<NodeConfig> = {}): NodeConfig {
    return {
      ...nodeConfigDefaults(),
      tickMs: 20,
      id,
      dataDir: join(this.dir.path, id),
      raftListen: this.peers[id] ?? '127.0.0.1:0',
      peers: this.peers,
      ...this.overrides,
      ...extra,
    };
  }

  async startNode(id: string, extra: Partial<NodeConfig> = {}): Promise<ClusterNode> {
    const node = await ClusterNode.open({
      config: this.config(id, extra),
      logger: pino({ level: process.env['RAFTQ_TEST_LOG'] ?? 'silent', base: { node: id } }),
      onFatal: (error) => {
        throw error;
      },
    });
    this.nodes.set(id, node);
    return node;
  }

  node(id: string): ClusterNode {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`no node ${id}`);
    return node;
  }

  async leader(timeoutMs = 10_000): Promise<ClusterNode> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const node of this.nodes.values()) if (node.isLeader()) return node;
      if (Date.now() > deadline) throw new Error('no leader elected');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stopNode(id: string): Promise<void> {
    await this.node(id).close();
    this.nodes.delete(id);
  }

  async close(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((node) => node.close()));
    this.nodes.clear();
    this.dir.cleanup();
  }
}

const utf8 = new TextEncoder();

/** A txn that writes ("t", key) = value, read at the node's applied point. */
export async function putTxn(node: ClusterNode, txnId: string, key: string, value: string): Promise<Txn> {
  const view = await node.readView({ linearizable: false });
  view.release();
  return {
    txnId,
    startTsUs: view.ts,
    nowMs: node.nowMs(),
    readKeys: [],
    writes: [{ kind: 'put', key: encodeKey(['t', key]), value: utf8.encode(value) }],
  };
}

export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
