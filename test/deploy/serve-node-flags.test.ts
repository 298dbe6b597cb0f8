/**
 * The node flags of `raftq serve` (src/cli/serve-node-flags.ts) are given by every launcher the
 * repository carries, and a node started without them says so in its log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingServeNodeFlags, serveNodeFlags } from '../../src/cli/serve-node-flags.js';
import { makeTempDir } from '../support/temp-dir.js';
import { deployFile, parseDockerfile, parseUnit } from './support/deploy-files.js';
import { freePort } from '../support/ports.js';
import { mainScript, NodeProcess, repoRoot } from './support/node-process.js';

/** The arguments between the node executable and the script in a command line split into words. */
function flagsBeforeScript(words: readonly string[], script: RegExp): string[] {
  const at = words.findIndex((word) => script.test(word));
  expect(at, `${words.join(' ')} runs ${script}`).toBeGreaterThan(0);
  return words.slice(1, at);
}

const mainScriptWord = /dist\/src\/cli\/main\.js"?$/;

describe('missingServeNodeFlags', () => {
  it('names each flag given neither on the command line nor in NODE_OPTIONS', () => {
    expect(missingServeNodeFlags([], undefined)).toEqual(serveNodeFlags);
    expect(missingServeNodeFlags(['--inspect'], '--trace-warnings')).toEqual(serveNodeFlags);
  });

  it('accepts each flag by name, with any value, on the command line or in NODE_OPTIONS, with dashes or underscores', () => {
    expect(missingServeNodeFlags(serveNodeFlags, undefined)).toEqual([]);
    expect(missingServeNodeFlags([], serveNodeFlags.join(' '))).toEqual([]);
    const names = serveNodeFlags.map((flag) => flag.split('=')[0] as string);
    expect(
      missingServeNodeFlags(
        names.map((name) => `${name}=8`),
        undefined,
      ),
    ).toEqual([]);
    expect(
      missingServeNodeFlags([], names.map((name) => `--${name.slice(2).replaceAll('-', '_')}=8`).join(' ')),
    ).toEqual([]);
  });
});

describe('every launcher of a node', () => {
  it('npm start', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = (pkg.scripts['start'] ?? '').split(/\s+/);
    expect(words[0]).toBe('node');
    expect(flagsBeforeScript(words, mainScriptWord)).toEqual(serveNodeFlags);
  });

  it('the systemd unit', () => {
    const execStart = parseUnit(deployFile('systemd/raftq@.service')).get('Service')?.get('ExecStart')?.[0] ?? '';
    expect(flagsBeforeScript(execStart.split(/\s+/), mainScriptWord)).toEqual(serveNodeFlags);
  });

  it("the container image's entrypoint (compose and the StatefulSet run the image)", () => {
    const entrypoint = parseDockerfile(deployFile('compose/Dockerfile')).find(
      (line) => line.instruction === 'ENTRYPOINT',
    );
    const words = JSON.parse(entrypoint?.args ?? '[]') as string[];
    expect(words[0]).toBe('node');
    expect(flagsBeforeScript(words, mainScriptWord)).toEqual(serveNodeFlags);
  });

  it("the benchmarks' raftq peer script, before the extra flags a benchmark may add", () => {
    const line = readFileSync(join(repoRoot, 'bench/peers/raftq.sh'), 'utf8')
      .split('\n')
      .find((text) => text.includes('start_detached') && text.includes('$entry'));
    const words = (line ?? '').trim().split(/\s+/);
    const node = words.indexOf('node');
    expect(node).toBeGreaterThan(0);
    expect(flagsBeforeScript(words.slice(node), /\$entry"$/)).toEqual([
      ...serveNodeFlags,
      '${RAFTQ_BENCH_NODE_ARGS:-}',
    ]);
  });
});

describe('a node started without them', () => {
  const dir = makeTempDir('serve-node-flags');
  const nodes: NodeProcess[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    dir.cleanup();
  });

  async function startAndReadLog(name: string, nodeFlags: readonly string[], nodeOptions: string): Promise<string> {
    const [sqs, admin, raft] = [await freePort(), await freePort(), await freePort()];
    const argv = [...nodeFlags, mainScript, 'serve', '--data-dir', join(dir.path, name)];
    argv.push('--sqs-listen', `127.0.0.1:${sqs}`, '--admin-listen', `127.0.0.1:${admin}`);
    argv.push('--raft-listen', `127.0.0.1:${raft}`);
    const env = { PATH: process.env['PATH'] ?? '', NODE_OPTIONS: nodeOptions };
    const node = new NodeProcess(name, argv, env, join(dir.path, `${name}.log`), `127.0.0.1:${admin}`);
    nodes.push(node);
    await node.waitReady();
    expect(await node.stop()).toBe(0);
    return readFileSync(node.logFile, 'utf8');
  }

  it('logs which flags it lacks and how to give them; with them given either way it does not', async () => {
    const without = await startAndReadLog('without', [], '');
    expect(without).toContain('"missingNodeFlags":');
    for (const flag of serveNodeFlags) expect(without).toContain(flag);
    expect(await startAndReadLog('with', serveNodeFlags, '')).not.toContain('missingNodeFlags');
    expect(await startAndReadLog('options', [], serveNodeFlags.join(' '))).not.toContain('missingNodeFlags');
  });
});
