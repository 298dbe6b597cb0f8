import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { serveNodeFlags } from '../../src/cli/serve-node-flags.js';
import { makeTempDir } from '../support/temp-dir.js';

const run = promisify(execFile);
const mainScript = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose SQS, admin and Raft ports (base, +1, +2) are all free right now. */
async function freeBasePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await isPortFree(base)) && (await isPortFree(base + 1)) && (await isPortFree(base + 2))) return base;
  }
  throw new Error('no three consecutive free ports');
}

describe('raftq cluster up / down', () => {
  const dir = makeTempDir('cli-cluster');
  afterAll(async () => {
    await run(process.execPath, [mainScript, 'cluster', 'down', '--base-dir', dir.path]).catch(() => undefined);
    dir.cleanup();
  });

  it('starts a local cluster in the background, returns once it is ready, and stops it with SIGTERM', async () => {
    const base = await freeBasePort();
    const up = await run(
      process.execPath,
      [mainScript, 'cluster', 'up', '--nodes', '1', '--base-dir', dir.path, '--base-port', String(base)],
      { timeout: 60_000 },
    );
    expect(up.stdout).toContain(
      `n1  sqs http://127.0.0.1:${base}  admin http://127.0.0.1:${base + 1}  raft 127.0.0.1:${base + 2}`,
    );
    const record = JSON.parse(readFileSync(join(dir.path, 'cluster.json'), 'utf8')) as { nodes: { pid: number }[] };
    const pid = record.nodes[0]?.pid as number;
    // The node runs with the flags every launcher gives it (src/cli/serve-node-flags.ts).
    const nodeArgv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(nodeArgv.slice(1, 1 + serveNodeFlags.length)).toEqual(serveNodeFlags);
    const status = JSON.parse(
      (await run(process.execPath, [mainScript, 'status', '--admin', `127.0.0.1:${base + 1}`])).stdout,
    ) as { role: string };
    expect(status.role).toBe('leader');
    const down = await run(process.execPath, [mainScript, 'cluster', 'down', '--base-dir', dir.path], {
      timeout: 30_000,
    });
    expect(down.stdout).toContain('n1 stopped');
    expect(() => process.kill(pid, 0)).toThrow();
    const log = readFileSync(join(dir.path, 'n1.log'), 'utf8');
    expect(log).toContain('"msg":"shut down"');
    expect(log).not.toContain('missingNodeFlags');
  });
});
