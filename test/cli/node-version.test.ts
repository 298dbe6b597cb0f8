import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionMinimum, nodeVersionProblem } from '../../src/cli/node-version.js';
import { mainScript } from '../deploy/support/node-process.js';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the Node.js version raftq needs', () => {
  it('refuses what lacks zlib.crc32 with one sentence naming both versions, and takes 20.15 and later', () => {
    expect(nodeVersionProblem('20.14.0')).toBe(
      'Node.js 20.15.0 or newer is needed (for zlib.crc32); this is Node.js 20.14.0',
    );
    expect(nodeVersionProblem('18.20.4')).toMatch(/^Node\.js 20\.15\.0 or newer is needed/);
    expect(nodeVersionProblem('20.15.0')).toBeNull();
    expect(nodeVersionProblem('20.19.2')).toBeNull();
    expect(nodeVersionProblem('22.0.0')).toBeNull();
    expect(nodeVersionProblem(process.versions.node)).toBeNull();
  });

  it("is what package.json's engines says", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe(`>=${nodeVersionMinimum.replace(/\.0$/, '')}`);
  });
});

describe('raftq on an older Node.js', () => {
  it('says which version it needs and exits 1 before it touches the data directory', async () => {
    const dir = makeTempDir('node-version');
    try {
      // Stands in for an older runtime: the version the CLI reads is made to say 20.14.0.
      const olderNode = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.14.0"})';
      const dataDir = join(dir.path, 'data');
      const [sqsPort, adminPort, raftPort] = await freePorts(3);
      const listens = [
        '--sqs-listen',
        `127.0.0.1:${sqsPort}`,
        '--admin-listen',
        `127.0.0.1:${adminPort}`,
        '--raft-listen',
        `127.0.0.1:${raftPort}`,
      ];
      const result = spawnSync(
        process.execPath,
        ['--import', olderNode, mainScript, 'serve', '--data-dir', dataDir, ...listens],
        { encoding: 'utf8', timeout: 30_000 },
      );
      expect(result.stderr).toBe(
        'raftq: Node.js 20.15.0 or newer is needed (for zlib.crc32); this is Node.js 20.14.0\n',
      );
      expect(result.status).toBe(1);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      dir.cleanup();
    }
  });
});
