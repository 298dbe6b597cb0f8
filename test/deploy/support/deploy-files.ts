/**
 * Reading the deploy/ files the way their tools would, far enough to check them and to run what
 * they would run: systemd units and environment files, Dockerfile instructions, and addresses
 * rewritten onto free loopback ports.
 */
import { readFileSync } from 'node:fs';
import { serveFlags } from '../../../src/cli/serve-options.js';
import { envName } from '../../../src/cli/flags.js';
import { freePort } from '../../support/ports.js';
import { repoRoot } from './node-process.js';

export function deployFile(path: string): string {
  return readFileSync(`${repoRoot}/deploy/${path}`, 'utf8');
}

/** A systemd unit: section → key → every value given (keys may repeat). */
export function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section !== null) {
      current = new Map();
      sections.set(section[1] as string, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (current === null || eq === -1) throw new Error(`not a unit line: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** An environment file as systemd reads it (KEY=VALUE, # comments). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) throw new Error(`not an environment line: ${line}`);
    env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** The RAFTQ_ variables `raftq serve` reads. */
export const serveEnvNames: ReadonlySet<string> = new Set([
  ...serveFlags.map((spec) => envName(spec.name)),
  'RAFTQ_CONFIG',
]);

/**
 * Rewrites every HOST:PORT in `text` onto 127.0.0.1 and a free port. `scope` keeps addresses
 * apart that are only local to one machine (127.0.0.1:9325 on each node, 0.0.0.0:9324 in each
 * container); names in `shared` (peer addresses) map the same from every node.
 */
export class AddressMap {
  private readonly ports = new Map<string, number>();

  constructor(private readonly isShared: (host: string) => boolean) {}

  async rewrite(text: string, scope: string): Promise<string> {
    const pattern = /\b([A-Za-z0-9.-]+):(\d{2,5})\b/g;
    let out = '';
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      const host = match[1] as string;
      const key = this.isShared(host) ? `${host}:${match[2]}` : `${scope}/${host}:${match[2]}`;
      let port = this.ports.get(key);
      if (port === undefined) {
        port = await freePort();
        while ([...this.ports.values()].includes(port)) port = await freePort();
        this.ports.set(key, port);
      }
      out += `${text.slice(last, match.index)}127.0.0.1:${port}`;
      last = (match.index ?? 0) + match[0].length;
    }
    return out + text.slice(last);
  }
}

/** Dockerfile instructions in order, continuation lines joined. */
export function parseDockerfile(text: string): { instruction: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const space = line.indexOf(' ');
      return { instruction: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}
