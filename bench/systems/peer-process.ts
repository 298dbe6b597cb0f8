// Starts and stops a system through its script in bench/peers/ (`start DIR ARGS...` prints
// "ready" and the pids of what it started; `stop DIR` ends exactly those).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root: scripts run from bench/peers/ in the source tree, next to dist/. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const peersDir = join(repoRoot, 'bench', 'peers');

export class PeerStartError extends Error {
  constructor(
    readonly script: string,
    readonly detail: string,
  ) {
    super(`${script} did not start: ${detail}`);
    this.name = 'PeerStartError';
  }
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' / ');
}

/** Runs `bash bench/peers/SCRIPT start DIR ...args` and resolves with the pids it reports. */
export function startPeer(script: string, dir: string, args: readonly string[], timeoutMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(peersDir, script), 'start', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new PeerStartError(script, `not ready within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const lines = stdout.trim().split('\n');
      const readyAt = lines.indexOf('ready');
      if (code !== 0 || readyAt < 0) {
        reject(new PeerStartError(script, lastLines(stderr || stdout, 3) || `exit code ${code}`));
        return;
      }
      resolve(
        lines
          .slice(readyAt + 1)
          .map(Number)
          .filter((pid) => Number.isInteger(pid) && pid > 0),
      );
    });
  });
}

export function stopPeer(script: string, dir: string): void {
  spawnSync('bash', [join(peersDir, script), 'stop', dir], { stdio: 'ignore', timeout: 60_000 });
}

/** Installs the Debian peers asked for; returns a reason for each one that could not be installed. */
export function installDebianPeers(names: readonly string[]): Map<string, string> {
  const skipped = new Map<string, string>();
  if (names.length === 0) return skipped;
  const run = spawnSync('bash', [join(peersDir, 'install.sh'), ...names], { encoding: 'utf8', timeout: 900_000 });
  for (const line of (run.stdout ?? '').split('\n')) {
    const m = /^skipped: ([^:]+): (.*)$/.exec(line);
    if (m?.[1] !== undefined) skipped.set(m[1], m[2] ?? 'not installed');
  }
  for (const name of names) {
    if (!skipped.has(name) && !(run.stdout ?? '').includes(`installed: ${name}`)) {
      skipped.set(name, `install.sh said nothing about it (${run.error?.message ?? `exit ${run.status}`})`);
    }
  }
  return skipped;
}
