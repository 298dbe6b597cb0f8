/**
 * `--metrics-listen`: a port that answers GET /metrics without the admin token (what a Prometheus
 * scrape by pod annotations can reach) and nothing else, while the admin port keeps every call
 * but /health and /ready behind the token.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidNodeConfigError } from '../../src/cluster/errors.js';
import { resolveServeOptions } from '../../src/cli/serve-options.js';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';
import { mainScript, NodeProcess } from './support/node-process.js';

describe('the metrics port', () => {
  const dir = makeTempDir('metrics-port');
  let node: NodeProcess | null = null;
  afterAll(async () => {
    await node?.kill();
    dir.cleanup();
  });

  it('is off unless --metrics-listen (RAFTQ_METRICS_LISTEN) gives it an address', () => {
    expect(resolveServeOptions([], {}).metricsListen).toBeNull();
    expect(resolveServeOptions([], { RAFTQ_METRICS_LISTEN: '0.0.0.0:9327' }).metricsListen).toBe('0.0.0.0:9327');
    expect(() => resolveServeOptions(['--metrics-listen', 'nowhere'], {})).toThrow(InvalidNodeConfigError);
  });

  it('serves /metrics without the token and nothing else; the admin port still wants the token', async () => {
    const [sqs, admin, raft, metrics] = await freePorts(4);
    const token = 'metrics-port-admin-token';
    const argv = [
      mainScript,
      'serve',
      '--data-dir',
      join(dir.path, 'n1'),
      '--sqs-listen',
      `127.0.0.1:${sqs}`,
      '--admin-listen',
      `127.0.0.1:${admin}`,
      '--raft-listen',
      `127.0.0.1:${raft}`,
      '--metrics-listen',
      `127.0.0.1:${metrics}`,
      '--admin-token',
      token,
    ];
    node = new NodeProcess('n1', argv, process.env, join(dir.path, 'n1.log'), `127.0.0.1:${admin}`);
    await node.waitReady();
    const scrape = await fetch(`http://127.0.0.1:${metrics}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await scrape.text();
    expect(text).toMatch(/^raftq_raft_role\{role="leader"\} 1$/m);
    expect(text).toMatch(/^# TYPE raftq_process_cpu_seconds_total counter$/m);
    for (const path of ['/status', '/backup', '/health', '/metrics/extra'])
      expect((await fetch(`http://127.0.0.1:${metrics}${path}`)).status, path).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metrics}/metrics`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`http://127.0.0.1:${admin}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`http://127.0.0.1:${admin}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    expect(await node.stop()).toBe(0);
  });
});
