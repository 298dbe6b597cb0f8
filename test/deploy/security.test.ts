/**
 * Security of a deployed cluster on real processes: certificates from `raftq certs`, mutual TLS
 * between nodes, a node with another CA's certificate or a wrong cluster secret refused, and the
 * admin port behind its bearer token.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, mainScript, runCli, waitFor } from './support/node-process.js';
import { FailoverSqs } from './support/sqs-traffic.js';

const secret = 'tls-test-secret';

interface Ports {
  readonly sqs: string;
  readonly admin: string;
  readonly raft: string;
}

describe('a TLS cluster', () => {
  const dir = makeTempDir('deploy-tls');
  const certs = join(dir.path, 'certs');
  const rogueCerts = join(dir.path, 'rogue');
  const ports = new Map<string, Ports>();
  const nodes = new Map<string, NodeProcess>();
  let peers = '';
  let sqs: FailoverSqs;

  function start(
    id: string,
    options: { certDir: string; clusterSecret: string; dataDir?: string; extraArgs?: string[] },
  ): NodeProcess {
    const p = ports.get(id) as Ports;
    const argv = [
      mainScript,
      'serve',
      '--id',
      id,
      '--data-dir',
      options.dataDir ?? join(dir.path, id),
      '--sqs-listen',
      p.sqs,
      '--admin-listen',
      p.admin,
      '--raft-listen',
      p.raft,
      '--peers',
      peers,
      '--tls-cert',
      join(options.certDir, `${id}.pem`),
      '--tls-key',
      join(options.certDir, `${id}-key.pem`),
      '--tls-ca',
      join(options.certDir, 'ca.pem'),
      ...(options.extraArgs ?? []),
    ];
    const node = new NodeProcess(
      id,
      argv,
      { ...process.env, RAFTQ_CLUSTER_SECRET: options.clusterSecret },
      join(dir.path, `${id}.log`),
      p.admin,
    );
    nodes.set(id, node);
    return node;
  }

  beforeAll(async () => {
    for (const id of ['n1', 'n2', 'n3']) {
      const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
      ports.set(id, { sqs: `127.0.0.1:${sqsPort}`, admin: `127.0.0.1:${adminPort}`, raft: `127.0.0.1:${raftPort}` });
    }
    peers = [...ports].map(([id, p]) => `${id}=${p.raft}`).join(',');
    const made = await runCli([
      'certs',
      '--out',
      certs,
      '--nodes',
      'n1=127.0.0.1,localhost;n2=127.0.0.1,localhost;n3=127.0.0.1,localhost',
    ]);
    expect(made.code, made.stderr).toBe(0);
    // Another CA, with a certificate for n3 that is otherwise just as valid.
    const rogue = await runCli([
      'certs',
      '--out',
      rogueCerts,
      '--nodes',
      'n3=127.0.0.1,localhost',
      '--ca-name',
      'some other CA',
    ]);
    expect(rogue.code, rogue.stderr).toBe(0);
    sqs = new FailoverSqs(() => ['n1', 'n2'].map((id) => `http://${(ports.get(id) as Ports).sqs}`));
  });

  afterAll(async () => {
    sqs?.close();
    await Promise.all([...nodes.values()].map((node) => node.kill()));
    dir.cleanup();
  });

  it('raftq certs makes a CA and node certificates that name the node and its hosts and serve both ends', async () => {
    const text = readFileSync(join(certs, 'n2.pem'), 'utf8');
    expect(text).toContain('BEGIN CERTIFICATE');
    const { execFileSync } = await import('node:child_process');
    const decoded = execFileSync('openssl', ['x509', '-in', join(certs, 'n2.pem'), '-noout', '-text'], {
      encoding: 'utf8',
    });
    expect(decoded).toMatch(/DNS:n2/);
    expect(decoded).toMatch(/IP Address:127\.0\.0\.1/);
    expect(decoded).toMatch(/TLS Web Server Authentication, TLS Web Client Authentication/);
    const verified = execFileSync('openssl', ['verify', '-CAfile', join(certs, 'ca.pem'), join(certs, 'n2.pem')], {
      encoding: 'utf8',
    });
    expect(verified).toContain('OK');
    // Running it again for a new node reuses the CA: the running nodes trust the new certificate.
    const caBefore = readFileSync(join(certs, 'ca.pem'), 'utf8');
    const again = await runCli(['certs', '--out', certs, '--nodes', 'n4=127.0.0.1']);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(certs, 'ca.pem'), 'utf8')).toBe(caBefore);
    expect(
      execFileSync('openssl', ['verify', '-CAfile', join(certs, 'ca.pem'), join(certs, 'n4.pem')], {
        encoding: 'utf8',
      }),
    ).toContain('OK');
  });

  it("nodes with certificates of the cluster CA form a cluster; a node with another CA's certificate cannot join", async () => {
    const n1 = start('n1', { certDir: certs, clusterSecret: secret });
    const n2 = start('n2', { certDir: certs, clusterSecret: secret });
    const rogue = start('n3', { certDir: rogueCerts, clusterSecret: secret });
    await Promise.all([n1.waitReady(), n2.waitReady()]);
    await sqs.createQueue('tls');
    for (let i = 0; i < 20; i++) await sqs.send('tls', `tls-${i}`);
    const leaderStatus = await n1.status();
    // The two good nodes committed the traffic; the rogue node has applied nothing of it and
    // knows no leader: its handshakes fail both ways.
    await waitFor(
      async () => (await n2.status()).appliedIndex >= leaderStatus.commitIndex,
      10_000,
      'n2 to apply the traffic',
    );
    const rogueStatus = await rogue.status();
    expect(rogueStatus.leader).toBe('');
    expect(rogueStatus.appliedIndex).toBeLessThan(leaderStatus.commitIndex);
    expect((await fetch(`http://${(ports.get('n3') as Ports).admin}/ready`)).status).toBe(503);
    expect(rogue.isRunning).toBe(true);
    await rogue.kill();
  });

  it('a node with the right certificate but a wrong cluster secret is refused, and joins once it has the right one', async () => {
    const n3DataDir = join(dir.path, 'n3-second');
    const wrong = start('n3', { certDir: certs, clusterSecret: 'not-the-secret', dataDir: n3DataDir });
    await waitFor(
      () =>
        /refused/i.test(
          readFileSync(join(dir.path, 'n1.log'), 'utf8') + readFileSync(join(dir.path, 'n2.log'), 'utf8'),
        ),
      20_000,
      'a good node to log that it refused n3',
    );
    const leaderStatus = await (nodes.get('n1') as NodeProcess).status();
    const wrongStatus = await wrong.status();
    expect(wrongStatus.leader).toBe('');
    expect(wrongStatus.appliedIndex).toBeLessThan(leaderStatus.commitIndex);
    await wrong.kill();
    // Same data directory, same certificate, the right secret: it catches up.
    const right = start('n3', { certDir: certs, clusterSecret: secret, dataDir: n3DataDir });
    await right.waitReady();
    await waitFor(
      async () => {
        const statuses = await Promise.all(['n1', 'n2', 'n3'].map((id) => (nodes.get(id) as NodeProcess).status()));
        return (
          new Set(statuses.map((s) => s.stateDigest)).size === 1 &&
          new Set(statuses.map((s) => s.appliedIndex)).size === 1
        );
      },
      30_000,
      'n3 to catch up',
    );
  });

  it('an admin port with a token answers /health and /ready to anyone and everything else only with the token', async () => {
    const p = ports.get('n1') as Ports;
    const n1 = nodes.get('n1') as NodeProcess;
    expect(await n1.stop()).toBe(0);
    const token = 'admin-token-for-test';
    const withToken = start('n1', { certDir: certs, clusterSecret: secret, extraArgs: ['--admin-token', token] });
    await withToken.waitReady();
    const admin = `http://${p.admin}`;
    expect((await fetch(`${admin}/health`)).status).toBe(200);
    expect((await fetch(`${admin}/status`)).status).toBe(401);
    expect((await fetch(`${admin}/metrics`)).status).toBe(401);
    expect((await fetch(`${admin}/backup`, { headers: { 'x-raftq-cluster-secret': secret } })).status).toBe(401);
    expect(
      (await fetch(`${admin}/status`, { headers: { authorization: 'Bearer wrong-token-of-same-size' } })).status,
    ).toBe(401);
    expect((await fetch(`${admin}/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const status = await runCli(['status', '--admin', p.admin, '--admin-token', token]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).id).toBe('n1');
    // A backup without the cluster secret is refused even with the token.
    const refused = await runCli([
      'backup',
      '--admin',
      p.admin,
      '--admin-token',
      token,
      '--out',
      join(dir.path, 'x.backup'),
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/401/);
  });

  it('the SQS endpoint serves HTTPS with --sqs-tls-cert, and its queue URLs say https', async () => {
    const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
    const argv = [
      mainScript,
      'serve',
      '--id',
      'h1',
      '--data-dir',
      join(dir.path, 'h1'),
      '--sqs-listen',
      `127.0.0.1:${sqsPort}`,
      '--admin-listen',
      `127.0.0.1:${adminPort}`,
      '--raft-listen',
      `127.0.0.1:${raftPort}`,
      '--sqs-tls-cert',
      join(certs, 'n1.pem'),
      '--sqs-tls-key',
      join(certs, 'n1-key.pem'),
    ];
    const node = new NodeProcess('h1', argv, process.env, join(dir.path, 'h1.log'), `127.0.0.1:${adminPort}`);
    nodes.set('h1', node);
    await node.waitReady();
    const client = new SQSClient({
      endpoint: `https://127.0.0.1:${sqsPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      requestHandler: new NodeHttpHandler({ httpsAgent: new Agent({ ca: readFileSync(join(certs, 'ca.pem')) }) }),
    });
    try {
      const created = await client.send(new CreateQueueCommand({ QueueName: 'over-tls' }));
      expect(created.QueueUrl).toBe(`https://127.0.0.1:${sqsPort}/000000000000/over-tls`);
      await client.send(new SendMessageCommand({ QueueUrl: created.QueueUrl, MessageBody: 'encrypted in transit' }));
      const received = await client.send(new ReceiveMessageCommand({ QueueUrl: created.QueueUrl, WaitTimeSeconds: 1 }));
      expect(received.Messages?.[0]?.Body).toBe('encrypted in transit');
    } finally {
      client.destroy();
    }
    // Plain HTTP to the same port gets no SQS answer.
    const plain = await fetch(`http://127.0.0.1:${sqsPort}/`, { method: 'POST', body: 'Action=ListQueues' }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
    await node.stop();
  });

  it('serve refuses an admin port beyond loopback without a token', async () => {
    const [adminPort] = (await freePorts(1)) as [number];
    const answer = await runCli([
      'serve',
      '--data-dir',
      join(dir.path, 'never'),
      '--admin-listen',
      `0.0.0.0:${adminPort}`,
    ]);
    expect(answer.code).toBe(2);
    expect(answer.stderr).toMatch(/--admin-token/);
  });
});
