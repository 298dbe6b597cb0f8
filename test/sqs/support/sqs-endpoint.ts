import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../support/ports.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { startInProcessGateway } from './in-process-gateway.js';

/**
 * The SQS endpoint end-to-end client tests talk to: a real `raftq serve` process (built CLI,
 * durable single-node cluster, real clocks) when dist/ has one, else the in-process gateway over
 * the queue layer's model executor. RAFTQ_SQS_TEST_TARGET=in-process forces the latter.
 */

export interface SqsEndpoint {
  readonly endpoint: string;
  readonly kind: 'serve-process' | 'in-process';
  close(): Promise<void>;
}

const cliPath = fileURLToPath(new URL('../../../dist/src/cli/main.js', import.meta.url));
const readyBoundMs = 30_000;

export function hasBuiltCli(): boolean {
  return existsSync(cliPath);
}

export async function startSqsEndpoint(options: { credentialsFile?: string } = {}): Promise<SqsEndpoint> {
  if (process.env['RAFTQ_SQS_TEST_TARGET'] === 'in-process' || !hasBuiltCli()) {
    const gateway = await startInProcessGateway(options);
    return { endpoint: gateway.endpoint, kind: 'in-process', close: () => gateway.close() };
  }
  return startServeProcess(options);
}

async function startServeProcess(options: { credentialsFile?: string }): Promise<SqsEndpoint> {
  const [sqsPort, adminPort, raftPort] = await freePorts(3);
  const dataDir = makeTempDir('sqs-e2e');
  const args = [
    cliPath,
    'serve',
    '--data-dir',
    dataDir.path,
    '--sqs-listen',
    `127.0.0.1:${sqsPort}`,
    '--admin-listen',
    `127.0.0.1:${adminPort}`,
    '--raft-listen',
    `127.0.0.1:${raftPort}`,
    '--log-level',
    'warn',
    ...(options.credentialsFile !== undefined ? ['--credentials-file', options.credentialsFile] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitUntilReady(`http://127.0.0.1:${adminPort}/ready`, child, () => stderr);
  } catch (err) {
    await stop(child, exited);
    dataDir.cleanup();
    throw err;
  }
  return {
    endpoint: `http://127.0.0.1:${sqsPort}`,
    kind: 'serve-process',
    async close() {
      await stop(child, exited);
      dataDir.cleanup();
    },
  };
}

/** Polls /ready (bounded): the node must know a leader and have applied what was committed. */
async function waitUntilReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadlineMs = Date.now() + readyBoundMs;
  while (Date.now() < deadlineMs) {
    if (child.exitCode !== null) throw new Error(`raftq serve exited with ${child.exitCode}: ${stderr()}`);
    const isReady = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (isReady) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`raftq serve was not ready within ${readyBoundMs} ms: ${stderr()}`);
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
