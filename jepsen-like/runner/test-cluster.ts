import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assert } from '../../src/base/assert.js';
import { passMode, type LinkMode } from '../proxy/link-mode.js';
import { TcpProxy } from '../proxy/tcp-proxy.js';
import { freeLoopbackPorts } from './free-port.js';
import { NodeAdmin, type NodeStatus } from './node-admin.js';
import { NodeProcess } from './node-process.js';

export interface TestClusterOptions {
  readonly nodeCount: number;
  /** The run's directory: node data under DIR/nodes/<id>, node logs in DIR/logs. */
  readonly runDir: string;
  readonly cliPath: string;
  readonly extraNodeArgs: readonly string[];
  /** Further flags for some nodes only (a failpoint). */
  readonly extraArgsByNode?: Readonly<Record<string, readonly string[]>>;
  readonly adminTimeoutMs: number;
}

/**
 * A real cluster on loopback, wired so the nemesis can cut any directed link: node i reaches node
 * j only through the proxy i->j (node i's --peers names that proxy as j's address), and clients
 * reach node j only through the proxy client->j. The runner's own admin calls go direct.
 */
export class TestCluster {
  readonly nodes: NodeProcess[] = [];
  readonly admins = new Map<string, NodeAdmin>();
  readonly nodeLinks = new Map<string, TcpProxy>();
  readonly clientLinks = new Map<string, TcpProxy>();

  private constructor(readonly options: TestClusterOptions) {}

  static async create(options: TestClusterOptions): Promise<TestCluster> {
    const cluster = new TestCluster(options);
    await cluster.wire();
    return cluster;
  }

  get ids(): string[] {
    return this.nodes.map((n) => n.id);
  }

  node(id: string): NodeProcess {
    const node = this.nodes.find((n) => n.id === id);
    assert(node !== undefined, `no node ${id}`);
    return node;
  }

  admin(id: string): NodeAdmin {
    const admin = this.admins.get(id);
    assert(admin !== undefined, `no node ${id}`);
    return admin;
  }

  /** The SQS URL a client uses for node `id`: its client proxy. */
  clientUrl(id: string): string {
    const proxy = this.clientLinks.get(id);
    assert(proxy !== undefined);
    return `http://127.0.0.1:${proxy.port}`;
  }

  startAll(): void {
    for (const node of this.nodes) node.start();
  }

  /** Waits until every running, unpaused node answers /ready with 200, or the bound passes. */
  async waitUntilReady(
    boundMs: number,
    isWanted: (node: NodeProcess) => boolean = (n) => n.isRunning && !n.isPaused,
  ): Promise<{ isReady: boolean; notReady: string[] }> {
    const deadline = performance.now() + boundMs;
    let notReady: string[] = [];
    for (;;) {
      const wanted = this.nodes.filter(isWanted);
      const ready = await Promise.all(wanted.map((n) => this.admin(n.id).isReady()));
      notReady = wanted.filter((_, i) => !ready[i]).map((n) => n.id);
      if (notReady.length === 0) return { isReady: true, notReady };
      // A node that died by itself will not become ready: say so now rather than at the bound.
      const isAnyCrashed = this.nodes.some((n) => n.unexpectedExits.length > 0 && !n.isRunning);
      if (performance.now() > deadline || isAnyCrashed) return { isReady: false, notReady };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Waits until node `id`'s admin port answers, or the bound passes. A node restarted by a heal
   * (kill -9, log-tail damage) runs a while before it listens; /ready would also wait for a leader,
   * which a node cut off by a partition does not have.
   */
  async waitUntilListening(id: string, boundMs: number): Promise<boolean> {
    const deadline = performance.now() + boundMs;
    for (;;) {
      if (await this.admin(id).isListening()) return true;
      if (performance.now() > deadline || !this.node(id).isRunning) return false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async statuses(): Promise<Map<string, NodeStatus>> {
    const live = this.nodes.filter((n) => n.isRunning && !n.isPaused);
    const answers = await Promise.all(live.map((n) => this.admin(n.id).status()));
    const map = new Map<string, NodeStatus>();
    live.forEach((n, i) => {
      const s = answers[i];
      if (s !== undefined) map.set(n.id, s);
    });
    return map;
  }

  /** The node that says it leads in the highest term any node reports, if any does. */
  async leader(): Promise<string | undefined> {
    let best: NodeStatus | undefined;
    for (const s of (await this.statuses()).values()) {
      if (s.role === 'leader' && (best === undefined || s.term > best.term)) best = s;
    }
    return best?.id;
  }

  setNodeLink(from: string, to: string, mode: LinkMode): void {
    const proxy = this.nodeLinks.get(`${from}->${to}`);
    assert(proxy !== undefined, `no link ${from}->${to}`);
    proxy.setMode(mode);
  }

  setAllNodeLinks(mode: LinkMode): void {
    for (const proxy of this.nodeLinks.values()) proxy.setMode(mode);
  }

  healNetwork(): void {
    for (const proxy of [...this.nodeLinks.values(), ...this.clientLinks.values()]) proxy.setMode(passMode);
  }

  async shutdown(graceMs: number): Promise<void> {
    this.healNetwork();
    await Promise.all(this.nodes.map((n) => n.stop(graceMs)));
    await Promise.all([...this.nodeLinks.values(), ...this.clientLinks.values()].map((p) => p.close()));
  }

  private async wire(): Promise<void> {
    const { nodeCount, runDir } = this.options;
    const ids = Array.from({ length: nodeCount }, (_, i) => `n${i + 1}`);
    const ports = await freeLoopbackPorts(nodeCount * 3);
    const portOf = (i: number, k: number): number => ports[i * 3 + k] as number;
    mkdirSync(join(runDir, 'logs'), { recursive: true });
    for (const [i, to] of ids.entries()) {
      for (const from of ids) {
        if (from === to) continue;
        const proxy = new TcpProxy({
          name: `${from}->${to}`,
          listenHost: '127.0.0.1',
          listenPort: 0,
          targetHost: '127.0.0.1',
          targetPort: portOf(i, 2),
        });
        await proxy.start();
        this.nodeLinks.set(proxy.name, proxy);
      }
      const client = new TcpProxy({
        name: `client->${to}`,
        listenHost: '127.0.0.1',
        listenPort: 0,
        targetHost: '127.0.0.1',
        targetPort: portOf(i, 0),
      });
      await client.start();
      this.clientLinks.set(to, client);
    }
    for (const [i, id] of ids.entries()) {
      const peersFlag = ids
        .map(
          (other, j) =>
            `${other}=127.0.0.1:${other === id ? portOf(j, 2) : (this.nodeLinks.get(`${id}->${other}`) as TcpProxy).port}`,
        )
        .join(',');
      const dataDir = join(runDir, 'nodes', id);
      mkdirSync(dataDir, { recursive: true });
      this.nodes.push(
        new NodeProcess({
          id,
          dataDir,
          sqsPort: portOf(i, 0),
          adminPort: portOf(i, 1),
          raftPort: portOf(i, 2),
          peersFlag,
          logPath: join(runDir, 'logs', `${id}.log`),
          cliPath: this.options.cliPath,
          extraArgs: [...this.options.extraNodeArgs, ...(this.options.extraArgsByNode?.[id] ?? [])],
        }),
      );
      this.admins.set(id, new NodeAdmin(id, `http://127.0.0.1:${portOf(i, 1)}`, this.options.adminTimeoutMs));
    }
  }
}
