/**
 * What a person sees when `raftq serve` cannot start, or `raftq status` reaches no node: one line
 * on stderr naming the flag and the address or directory at fault, exit code 1, no stack trace.
 * Real processes through the CLI.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listenFailure } from '../../src/cli/start-up-errors.js';
import { mainScript, NodeProcess, runCli } from '../deploy/support/node-process.js';
import { freePort, freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';

const dir = makeTempDir('start-up-errors');
afterAll(() => dir.cleanup());

/** Flags for a node on fresh loopback ports, with `overrides` (flag → value) applied. */
async function serveArgs(dataDir: string, overrides: Record<string, string> = {}): Promise<string[]> {
  const [sqs, admin, raft] = await freePorts(3);
  const flags: Record<string, string> = {
    'data-dir': dataDir,
    'sqs-listen': `127.0.0.1:${sqs}`,
    'admin-listen': `127.0.0.1:${admin}`,
    'raft-listen': `127.0.0.1:${raft}`,
    'log-level': 'warn',
    ...overrides,
  };
  return ['serve', ...Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value])];
}

/** The raftq line on stderr (gRPC may log a line of its own before it). */
function raftqLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line !== '');
  return lines.filter((line) => line.startsWith('raftq: ')).join('\n');
}

function expectNoStackTrace(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
}

async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

describe('raftq serve on an address already in use', () => {
  for (const flag of ['sqs-listen', 'admin-listen', 'metrics-listen', 'raft-listen']) {
    it(`names --${flag} and the address, and exits 1`, async () => {
      const port = await freePort();
      const blocker = await listenOn(port);
      try {
        const address = `127.0.0.1:${port}`;
        const result = await runCli(
          await serveArgs(join(dir.path, `taken-${flag}`), { [flag]: address }),
          process.env,
          30_000,
        );
        expect(raftqLine(result.stderr)).toBe(
          `raftq: --${flag} ${address}: the address is already in use (EADDRINUSE): another raftq node or another program listens there; stop it, or choose another port`,
        );
        expect(result.code).toBe(1);
        expectNoStackTrace(result.stderr);
      } finally {
        await new Promise<void>((resolve) => blocker.close(() => resolve()));
      }
    });
  }

  it('is told apart from failures that are not about the address', () => {
    const notFound = Object.assign(new Error("ENOENT: no such file or directory, open '/x/cert.pem'"), {
      code: 'ENOENT',
      syscall: 'open',
    });
    expect(listenFailure('sqs-listen', '127.0.0.1:1', notFound)).toBeNull();
    const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/data'"), {
      code: 'EACCES',
      syscall: 'mkdir',
    });
    expect(listenFailure('raft-listen', '127.0.0.1:1', denied)).toBeNull();
    const grpcBind = new Error(
      'No address added out of total 1 resolved errors: [listen EADDRNOTAVAIL: address not available 10.9.9.9:9326]',
    );
    expect(listenFailure('raft-listen', '10.9.9.9:9326', grpcBind)?.message).toBe(
      '--raft-listen 10.9.9.9:9326: no network interface of this machine has that address (EADDRNOTAVAIL)',
    );
  });
});

describe('raftq serve on a data directory it cannot use', () => {
  let holder: NodeProcess | null = null;
  afterAll(async () => {
    await holder?.kill();
  });

  it('held by another running node says so, names the lock, and leaves that node serving', async () => {
    const dataDir = join(dir.path, 'held');
    const args = await serveArgs(dataDir);
    const adminAddress = args[args.indexOf('--admin-listen') + 1] as string;
    holder = new NodeProcess('holder', [mainScript, ...args], process.env, join(dir.path, 'holder.log'), adminAddress);
    await holder.waitReady();
    const second = await runCli(await serveArgs(dataDir), process.env, 30_000);
    expect(raftqLine(second.stderr)).toBe(
      `raftq: --data-dir ${dataDir}: in use by another running raftq node (another process holds the lock ${join(dataDir, 'raft', 'LOCK')}); stop that node, or give this one its own data directory`,
    );
    expect(second.code).toBe(1);
    expectNoStackTrace(second.stderr);
    expect((await holder.status()).role).toBe('leader');
  });

  it('that is a file says so and leaves the file alone', async () => {
    const file = join(dir.path, 'not-a-dir');
    writeFileSync(file, 'something else\n');
    const result = await runCli(await serveArgs(file), process.env, 30_000);
    expect(raftqLine(result.stderr)).toBe(`raftq: --data-dir ${file}: it is a file, not a directory`);
    expect(result.code).toBe(1);
    expectNoStackTrace(result.stderr);
    expect(readFileSync(file, 'utf8')).toBe('something else\n');
  });

  it('under a file says a part of its path is a file', async () => {
    const file = join(dir.path, 'a-file');
    writeFileSync(file, '');
    const result = await runCli(await serveArgs(join(file, 'data')), process.env, 30_000);
    expect(raftqLine(result.stderr)).toBe(
      `raftq: --data-dir ${join(file, 'data')}: a part of its path is a file, not a directory`,
    );
    expect(result.code).toBe(1);
  });
});

describe('raftq status against a node that is down', () => {
  it('says which address it tried and that nothing answered, and exits 1', async () => {
    const admin = `127.0.0.1:${await freePort()}`;
    const result = await runCli(['status', '--admin', admin], process.env, 30_000);
    expect(result.stderr).toBe(
      `raftq: nothing answered at ${admin} (connection refused): is the node running, and is ${admin} its --admin-listen? Give --admin HOST:PORT of a running node\n`,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
  });
});
