/**
 * .gitignore and .dockerignore: what a node, a local cluster and `raftq certs` write into the
 * checkout (data, ./cluster, ./certs with a CA's private key) is never committed and never sent to
 * a Docker build, while everything the image's build stage compiles and copies still is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/node-process.js';
import { parseDockerfile, deployFile } from './support/deploy-files.js';
import { runtimeStageOf } from './support/image-layout.js';

/** Paths git ignores, of `paths` (relative to the repository root), as `git check-ignore` answers. */
function gitIgnored(paths: readonly string[]): Set<string> {
  // --no-index: ask the ignore rules, whatever is tracked. Exit status 1 means none is ignored.
  const result = spawnSync('git', ['-C', repoRoot, 'check-ignore', '--no-index', ...paths], { encoding: 'utf8' });
  if (result.status !== 0 && result.status !== 1) throw new Error(`git check-ignore failed: ${result.stderr}`);
  return new Set(result.stdout.split('\n').filter((line) => line !== ''));
}

/**
 * A .dockerignore as Docker reads it: each pattern is relative to the context root (a leading
 * slash changes nothing), `*` and `?` stay within one path segment, `**` crosses them, and a
 * directory that matches takes everything under it along. raftq's file uses no `!` exceptions.
 */
function dockerIgnoreMatcher(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      if (line.startsWith('!')) throw new Error(`exceptions are not supported by this reader: ${line}`);
      const pattern = line.replace(/^\/+/, '').replace(/\/+$/, '');
      const source = pattern
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*');
      return new RegExp(`^${source}$`);
    });
  return (path) => {
    const segments = path.split('/');
    for (let length = 1; length <= segments.length; length++) {
      const prefix = segments.slice(0, length).join('/');
      if (patterns.some((pattern) => pattern.test(prefix))) return true;
    }
    return false;
  };
}

const localOutputs = [
  'data/raft/CURRENT',
  'cluster/cluster.json',
  'cluster/n1/raft/LOG',
  'certs/ca-key.pem',
  'certs/n1-key.pem',
  'node_modules/pino/package.json',
  'dist/src/cli/main.js',
];

describe('.gitignore', () => {
  it("keeps certificates, keys and a local cluster's directory out of commits, and nothing of the source", () => {
    expect(gitIgnored(localOutputs)).toEqual(new Set(localOutputs));
    const tracked = execFileSync('git', ['-C', repoRoot, 'ls-files'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '');
    expect(tracked).toContain('src/cluster/node-stores.ts');
    expect([...gitIgnored(tracked)]).toEqual([]);
  });
});

describe('.dockerignore', () => {
  const isExcluded = dockerIgnoreMatcher(readFileSync(`${repoRoot}/.dockerignore`, 'utf8'));

  it('sends no local build output, data, cluster directory, certificates or git history to a build', () => {
    for (const path of [...localOutputs, '.git/HEAD', 'src/gen/proto.js', 'n1.log'])
      expect(isExcluded(path), path).toBe(true);
  });

  it('sends every tracked file, so the build stage compiles and copies what a clone holds', () => {
    const tracked = execFileSync('git', ['-C', repoRoot, 'ls-files'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '');
    expect(tracked.filter((path) => isExcluded(path))).toEqual([]);
    // What the runtime stage copies and the build does not produce comes from the context.
    const built = new Set(['dist', 'node_modules']);
    const stage = runtimeStageOf(parseDockerfile(deployFile('compose/Dockerfile')));
    for (const { source } of stage.copies) {
      const path = source.slice(stage.buildWorkdir.length + 1);
      if (built.has(path)) continue;
      expect(
        tracked.some((file) => file === path || file.startsWith(`${path}/`)),
        path,
      ).toBe(true);
    }
  });
});
