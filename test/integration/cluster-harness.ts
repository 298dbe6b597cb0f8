/**
 * Real raftq processes on loopback for the cluster integration tests: each node is
 * `node dist/src/cli/main.js serve …` with its own ports (freePorts), data dir and log file, and
 * the debug admin calls on, through which the tests submit transactions and read keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';

const mainScript = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;
export const clusterSecret = 'integration-secret';

export interface NodeSpec {
  readonly id: string;
  readonly sqsPort: number;
  readonly adminPort: number;
  readonly raftPort: number;
}

export interface NodeStatusJson {
  id: string;
  role: string;
  term: number;
  leader: string;
  commitIndex: number;
  appliedIndex: number;
  members: { id: string; address: string; role: string }[];
  stateDigest: string;
  firstIndex: number;
  snapshotIndex: number;
}

export class ProcessCluster {
  readonly processes = new Map<string, ChildProcess>();
  readonly specs = new Map<string, NodeSpec>();
  private readonly dir = makeTempDir('proc-cluster');

  private constructor(
    private readonly extraArgs: readonly string[],
    private readonly extraEnv: Readonly<Record<string, string>> = {},
  ) {}

  /** Starts `count` founding nodes n1..n<count> and waits until each is ready. */
  static async start(
    count: number,
    extraArgs: readonly string[] = [],
    extraEnv: Readonly<Record<string, string>> = {},
  ): Promise<ProcessCluster> {
    const cluster = new ProcessCluster(extraArgs, extraEnv);
    for (let i = 1; i <= count; i++) await cluster.allocate(`n${i}`);
    const founders = [...cluster.specs.keys()];
    for (const id of founders) cluster.spawnNode(id, { peers: founders });
    await Promise.all(founders.map((id) => cluster.waitReady(id)));
    return cluster;
  }

  /** A cluster with no node yet: allocate and spawn them one by one. */
  static async empty(extraArgs: readonly string[] = []): Promise<ProcessCluster> {
    return new ProcessCluster(extraArgs);
  }

  async allocate(id: string): Promise<NodeSpec> {
    const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
    const spec = { id, sqsPort, adminPort, raftPort };
    this.specs.set(id, spec);
    return spec;
  }

  peerList(ids: readonly string[]): string {
    return ids.map((id) => `${id}=127.0.0.1:${this.spec(id).raftPort}`).join(',');
  }

  spec(id: string): NodeSpec {
    const spec = this.specs.get(id);
    if (spec === undefined) throw new Error(`no node ${id}`);
    return spec;
  }

  /** Node `id`'s data directory (kept across restarts until close()). */
  dataDir(id: string): string {
    return join(this.dir.path, id);
  }

  logFile(id: string): string {
    return join(this.dir.path, `${id}.log`);
  }

  /** Starts (or restarts) a node; `peers` are the ids whose addresses it is given. */
  spawnNode(id: string, options: { peers: readonly string[]; join?: boolean; args?: readonly string[] }): ChildProcess {
    const spec = this.spec(id);
    const args = [
      mainScript,
      'serve',
      '--id',
      id,
      '--data-dir',
      this.dataDir(id),
      '--sqs-listen',
      `127.0.0.1:${spec.sqsPort}`,
      '--admin-listen',
      `127.0.0.1:${spec.adminPort}`,
      '--raft-listen',
      `127.0.0.1:${spec.raftPort}`,
      '--peers',
      this.peerList(options.peers),
      '--debug-endpoints',
      '--tick-ms',
      '20',
      ...(options.join === true ? ['--join'] : []),
      ...this.extraArgs,
      ...(options.args ?? []),
    ];
    const out = openSync(this.logFile(id), 'a');
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', out, out],
      env: { ...process.env, ...this.extraEnv, RAFTQ_CLUSTER_SECRET: clusterSecret },
    });
    closeSync(out);
    this.processes.set(id, child);
    return child;
  }

  isRunning(id: string): boolean {
    const child = this.processes.get(id);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** kill -9: no drain, no handover, unsynced writes lost as in a crash. */
  async kill(id: string): Promise<void> {
    await this.signal(id, 'SIGKILL');
  }

  /** SIGTERM: the node drains and exits 0; resolves with its exit code. */
  async stop(id: string): Promise<number | null> {
    return this.signal(id, 'SIGTERM');
  }

  private async signal(id: string, signal: NodeJS.Signals): Promise<number | null> {
    const child = this.processes.get(id);
    if (child === undefined || !this.isRunning(id)) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return exited;
  }

  async admin(id: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`http://127.0.0.1:${this.spec(id).adminPort}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-raftq-cluster-secret': clusterSecret },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? null : JSON.parse(text) };
  }

  async status(id: string): Promise<NodeStatusJson> {
    return (await this.admin(id, 'GET', '/status')).json as NodeStatusJson;
  }

  async waitReady(id: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        if (!this.isRunning(id)) throw new Error(this.startFailure(id));
        return (await this.admin(id, 'GET', '/ready').catch(() => ({ status: 0 }))).status === 200;
      },
      timeoutMs,
      `${id} to be ready`,
    );
  }

  /** The id of the node every running node agrees leads, waiting for one. */
  async leader(timeoutMs = 15_000): Promise<string> {
    let leader = '';
    await waitFor(
      async () => {
        const running = [...this.processes.keys()].filter((id) => this.isRunning(id));
        const statuses = await Promise.all(running.map((id) => this.status(id).catch(() => null)));
        const leaders = statuses.filter((s) => s !== null && s.role === 'leader').map((s) => (s as NodeStatusJson).id);
        if (leaders.length !== 1) return false;
        leader = leaders[0] as string;
        return true;
      },
      timeoutMs,
      'one leader',
    );
    return leader;
  }

  /** Commits a txn through node `id` that writes ("t", key) = value; retries while the cluster answers 503. */
  async put(
    id: string,
    key: string,
    value: string,
    options: { txnId?: string; timeoutMs?: number } = {},
  ): Promise<{ kind: string; commitTs?: number }> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    const txnId = options.txnId ?? `${id}-${key}-${Math.random().toString(36).slice(2)}`;
    for (;;) {
      const answer = await this.admin(id, 'POST', '/debug/txn', { txnId, writes: [{ key: ['t', key], value }] }).catch(
        (error: unknown) => ({ status: 0, json: { error: String(error) } }),
      );
      if (answer.status === 200) return answer.json.outcome;
      if (Date.now() > deadline)
        throw new Error(`put ${key} via ${id} kept failing: ${answer.status} ${JSON.stringify(answer.json)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Commits a put through whichever running node answers, moving on when one is down or answers
   * 503; every attempt carries the same txnId, so the put applies at most once.
   */
  async putAnywhere(
    key: string,
    value: string,
    options: { timeoutMs?: number; first?: string } = {},
  ): Promise<{ kind: string; via: string }> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    const txnId = `any-${key}-${Math.random().toString(36).slice(2)}`;
    let attempt = 0;
    let lastError = '';
    for (;;) {
      const live = [...this.processes.keys()].filter((id) => this.isRunning(id));
      const via =
        attempt === 0 && options.first !== undefined
          ? options.first
          : (live[attempt % Math.max(1, live.length)] ?? 'n1');
      attempt += 1;
      const answer = await this.admin(via, 'POST', '/debug/txn', { txnId, writes: [{ key: ['t', key], value }] }).catch(
        (error: unknown) => ({ status: 0, json: { error: String(error) } }),
      );
      if (answer.status === 200) return { kind: answer.json.outcome.kind as string, via };
      lastError = `${via}: ${answer.status} ${JSON.stringify(answer.json)}`;
      if (Date.now() > deadline) throw new Error(`put ${key} kept failing; last: ${lastError}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async keys(id: string, options: { linearizable: boolean }): Promise<Map<string, string>> {
    const answer = await this.admin(
      id,
      'GET',
      `/debug/keys?prefix=${encodeURIComponent(JSON.stringify(['t']))}${options.linearizable ? '&linearizable=1' : ''}`,
    );
    if (answer.status !== 200) throw new Error(`keys via ${id}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return new Map(
      (answer.json.keys as { key: string[]; value: string }[]).map((row) => [row.key[1] as string, row.value]),
    );
  }

  /** Waits until every running node applied the same index and reports the same digest. */
  async converged(timeoutMs = 20_000): Promise<NodeStatusJson[]> {
    let statuses: NodeStatusJson[] = [];
    await waitFor(
      async () => {
        const running = [...this.processes.keys()].filter((id) => this.isRunning(id));
        statuses = await Promise.all(running.map((id) => this.status(id)));
        const applied = new Set(statuses.map((s) => s.appliedIndex));
        const digests = new Set(statuses.map((s) => s.stateDigest));
        const memberships = new Set(
          statuses.map((s) => JSON.stringify(s.members.map((m) => `${m.id}:${m.role}`).sort())),
        );
        return applied.size === 1 && digests.size === 1 && memberships.size === 1;
      },
      timeoutMs,
      'every node to converge on one applied index, digest and membership',
    );
    return statuses;
  }

  /** Why node `id` is not running, with its log's tail: what a start-up failure must show. */
  startFailure(id: string): string {
    const child = this.processes.get(id);
    const spec = this.spec(id);
    const how = child?.signalCode != null ? `signal ${child.signalCode}` : `exit code ${String(child?.exitCode)}`;
    const tail = this.tail(id, 60);
    const portHint = /EADDRINUSE/.test(tail)
      ? ` — a port it was given was taken before it could bind (sqs ${spec.sqsPort}, admin ${spec.adminPort}, raft ${spec.raftPort})`
      : '';
    return `node ${id} exited during start-up (${how})${portHint}; the end of its log:\n${tail}`;
  }

  tail(id: string, lines = 30): string {
    try {
      return readFileSync(this.logFile(id), 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  logText(id: string): string {
    return readFileSync(this.logFile(id), 'utf8');
  }

  async close(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((id) => this.kill(id)));
    this.dir.cleanup();
  }
}

export async function waitFor(
  predicate: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One SQS call in the JSON protocol to node `id`, bounded so a held request fails the test instead of hanging it. */
export async function sqsCall(
  cluster: ProcessCluster,
  id: string,
  action: string,
  input: Record<string, unknown>,
): Promise<{ status: number; json: any }> {
  const response = await fetch(`http://127.0.0.1:${cluster.spec(id).sqsPort}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : JSON.parse(text) };
}
