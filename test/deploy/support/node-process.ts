/**
 * Real raftq processes for the deploy tests: start `node dist/src/cli/main.js …` with any argv and
 * environment, wait for /ready, stop with SIGTERM (and see the exit code), kill -9; plus the raftq
 * CLI run to completion, port ranges, SQS clients and polling with a bound.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { freePort } from '../../support/ports.js';

export const repoRoot = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const mainScript = `${repoRoot}/dist/src/cli/main.js`;

export async function waitFor(
  predicate: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One raftq process; its stdout and stderr go to `logFile`. */
export class NodeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    readonly argv: readonly string[],
    readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    readonly adminAddress: string,
    options: { command?: string; cwd?: string } = {},
  ) {
    const out = openSync(logFile, 'a');
    this.child = spawn(options.command ?? process.execPath, argv, {
      stdio: ['ignore', out, out],
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    closeSync(out);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get isRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async waitReady(timeoutMs = 30_000, headers: Record<string, string> = {}): Promise<void> {
    await waitFor(
      async () => {
        if (!this.isRunning) throw new Error(`${this.name} exited during start-up:\n${this.tail()}`);
        return (
          (
            await fetch(`http://${this.adminAddress}/ready`, { headers, signal: AbortSignal.timeout(3_000) }).catch(
              () => null,
            )
          )?.status === 200
        );
      },
      timeoutMs,
      `${this.name} to be ready`,
    );
  }

  async status(headers: Record<string, string> = {}): Promise<{
    id: string;
    role: string;
    leader: string;
    appliedIndex: number;
    commitIndex: number;
    stateDigest: string;
    members: { id: string; role: string }[];
  }> {
    const response = await fetch(`http://${this.adminAddress}/status`, {
      headers,
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`${this.name} /status: ${response.status}`);
    return (await response.json()) as never;
  }

  /** SIGTERM: drain, hand leadership over, exit. Resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.isRunning) this.child.kill('SIGTERM');
    return (await this.exited).code;
  }

  async kill(): Promise<void> {
    if (this.isRunning) this.child.kill('SIGKILL');
    await this.exited;
  }

  tail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

/** Runs the raftq CLI to completion. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 90_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [mainScript, ...args], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port such that base..base+span-1 were all free a moment ago (for `cluster up --base-port`). */
export async function freePortRange(span: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await freePort();
    if (base + span > 65_000) continue;
    let isFree = true;
    for (let port = base; port < base + span && isFree; port++) isFree = await isPortFree(port);
    if (isFree) return base;
  }
  throw new Error(`no free range of ${span} ports found`);
}

export function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'deploy-test', secretAccessKey: 'deploy-test' },
    maxAttempts: 1,
  });
}
