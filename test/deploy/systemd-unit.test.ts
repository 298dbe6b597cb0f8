/**
 * deploy/systemd as far as this machine allows (no systemd runs here): the unit's settings are
 * checked, and its ExecStart line runs as a process with each node's environment files, their
 * addresses moved onto free loopback ports, their certificate paths onto `raftq certs` output.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { serveNodeFlags } from '../../src/cli/serve-node-flags.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, repoRoot, runCli, waitFor } from './support/node-process.js';
import { AddressMap, deployFile, parseEnvFile, parseUnit, serveEnvNames } from './support/deploy-files.js';

const unit = parseUnit(deployFile('systemd/raftq@.service'));
const service = unit.get('Service') ?? new Map<string, string[]>();
const one = (key: string): string | undefined => service.get(key)?.[0];

function seconds(text: string | undefined): number {
  const match = /^(\d+)(s|min)?$/.exec(text ?? '');
  if (match === null) return Number.NaN;
  return Number(match[1]) * (match[2] === 'min' ? 60 : 1);
}

describe('the systemd unit', () => {
  const dir = makeTempDir('deploy-systemd');
  const nodes: NodeProcess[] = [];

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    dir.cleanup();
  });

  it('runs as a dedicated user with the hardening options', () => {
    expect(one('User')).toBe('raftq');
    expect(one('Group')).toBe('raftq');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ProtectHome')).toBe('yes');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('StateDirectory')).toBe('raftq/%i');
    // V8 needs writable executable memory: this option would crash the node at start.
    expect(service.has('MemoryDenyWriteExecute')).toBe(false);
  });

  it('restarts on failure and gives SIGTERM time to drain and hand leadership over', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    const stopSeconds = seconds(one('TimeoutStopSec'));
    expect(stopSeconds * 1000).toBeGreaterThanOrEqual(2 * raftLimits.shutdownDrainMs.value);
    expect(service.get('EnvironmentFile')).toEqual(['/etc/raftq/cluster.env', '/etc/raftq/%i.env']);
  });

  it('sets only variables raftq serve reads', () => {
    for (const file of ['cluster.env', 'n1.env', 'n2.env', 'n3.env']) {
      for (const name of Object.keys(parseEnvFile(deployFile(`systemd/${file}`))))
        expect(serveEnvNames, `${file}: ${name}`).toContain(name);
    }
  });

  it("its ExecStart line with each node's environment files starts a mutual-TLS cluster whose leader hands over on SIGTERM", async () => {
    const certs = join(dir.path, 'tls');
    const made = await runCli(['certs', '--out', certs, '--nodes', 'n1=127.0.0.1;n2=127.0.0.1;n3=127.0.0.1']);
    expect(made.code, made.stderr).toBe(0);
    const execStart = (one('ExecStart') ?? '').split(/\s+/);
    expect(execStart.slice(0, 3 + serveNodeFlags.length)).toEqual([
      '/usr/bin/node',
      ...serveNodeFlags,
      '/opt/raftq/dist/src/cli/main.js',
      'serve',
    ]);
    const argv = execStart.slice(1).map((arg) => arg.replace('/opt/raftq', repoRoot));
    // Peer addresses are the same from every node; loopback ones are each machine's own.
    const addresses = new AddressMap((host) => host !== '127.0.0.1' && host !== '0.0.0.0');
    const clusterEnv = parseEnvFile(deployFile('systemd/cluster.env'));
    for (const id of ['n1', 'n2', 'n3']) {
      const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
      for (const [name, value] of Object.entries({ ...clusterEnv, ...parseEnvFile(deployFile(`systemd/${id}.env`)) })) {
        env[name] = (await addresses.rewrite(value, id))
          .replace('/etc/raftq/tls', certs)
          .replace('/var/lib/raftq', dir.path);
      }
      expect(env['RAFTQ_TLS_CA']).toBe(join(certs, 'ca.pem'));
      const admin = env['RAFTQ_ADMIN_LISTEN'] as string;
      nodes.push(new NodeProcess(id, argv, env, join(dir.path, `${id}.log`), admin));
    }
    await Promise.all(nodes.map((node) => node.waitReady()));
    const statuses = await Promise.all(nodes.map((node) => node.status()));
    expect(statuses.map((s) => s.members.length)).toEqual([3, 3, 3]);
    const leaderId = statuses.find((s) => s.role === 'leader')?.id;
    const leader = nodes.find((node) => node.name === leaderId) as NodeProcess;
    // Exit code 0 on SIGTERM: the node finished its drain and exited by itself (stop() never
    // escalates to SIGKILL). That the drain fits inside TimeoutStopSec is the unit check above.
    expect(await leader.stop()).toBe(0);
    const survivors = nodes.filter((node) => node !== leader);
    await waitFor(
      async () => (await Promise.all(survivors.map((node) => node.status()))).some((s) => s.role === 'leader'),
      10_000,
      'a survivor to lead',
    );
    // The hand-over is in the stopped leader's log: it transferred rather than just vanished.
    expect(leader.tail(100)).toMatch(/transfer|hand/i);
  });
});
