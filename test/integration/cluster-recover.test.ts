import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterSecret, ProcessCluster, sqsCall, waitFor } from './cluster-harness.js';

const run = promisify(execFile);
const mainScript = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;

/** Runs the raftq CLI; resolves with its exit code and output whatever the code. */
async function raftqCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [mainScript, ...args], {
      env: { ...process.env, RAFTQ_CLUSTER_SECRET: clusterSecret },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}

/** Receives (and keeps invisible) messages through node `id` until `expected` bodies came back. */
async function receiveAll(
  cluster: ProcessCluster,
  id: string,
  queueUrl: string,
  expected: number,
): Promise<Set<string>> {
  const bodies = new Set<string>();
  await waitFor(
    async () => {
      const answer = await sqsCall(cluster, id, 'ReceiveMessage', {
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 600,
        WaitTimeSeconds: 1,
      });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      for (const message of answer.json.Messages ?? []) bodies.add(message.Body as string);
      return bodies.size >= expected;
    },
    30_000,
    `${expected} messages through ${id}`,
  );
  return bodies;
}

function roles(members: { id: string; role: string }[]): string[] {
  return members.map((m) => `${m.id}:${m.role}`).sort();
}

describe('recovering from a lost quorum with raftq recover', () => {
  let cluster: ProcessCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it('makes the survivor of a three-node cluster a one-node cluster with every acknowledged message, which grows back to three', async () => {
    const c = await ProcessCluster.start(3);
    cluster = c;
    const created = await sqsCall(c, 'n1', 'CreateQueue', { QueueName: 'survives' });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const queueUrl = created.json.QueueUrl as string;
    const acknowledged: string[] = [];
    for (let i = 0; i < 30; i++) {
      const body = `message-${i}`;
      const sent = await sqsCall(c, `n${(i % 3) + 1}`, 'SendMessage', { QueueUrl: queueUrl, MessageBody: body });
      expect(sent.status, JSON.stringify(sent.json)).toBe(200);
      acknowledged.push(body);
    }
    const leader = await c.leader();
    const survivor = ['n1', 'n2', 'n3'].find((id) => id !== leader) as string;
    const lost = ['n1', 'n2', 'n3'].filter((id) => id !== survivor);

    // Refused while the node runs: it holds the data directory.
    const whileRunning = await raftqCli('recover', '--data-dir', c.dataDir(survivor), '--id', survivor);
    expect(whileRunning.code, whileRunning.stdout + whileRunning.stderr).toBe(1);
    expect(whileRunning.stderr).toContain('a running process holds it');

    // Every node has everything, then all three die; two machines are gone for good.
    await c.converged();
    await Promise.all(['n1', 'n2', 'n3'].map((id) => c.kill(id)));
    for (const id of lost) rmSync(c.dataDir(id), { recursive: true, force: true });

    const wrongId = await raftqCli('recover', '--data-dir', c.dataDir(survivor), '--id', 'n9');
    expect(wrongId.code).toBe(1);
    expect(wrongId.stderr).toContain('not n9');

    const recovered = await raftqCli('recover', '--data-dir', c.dataDir(survivor), '--id', survivor);
    expect(recovered.code, recovered.stderr).toBe(0);
    const report = JSON.parse(recovered.stdout.split('\n')[0] as string) as Record<string, any>;
    expect(report).toMatchObject({
      id: survivor,
      raftAddress: `127.0.0.1:${c.spec(survivor).raftPort}`,
      isChanged: true,
      removedMembers: lost,
      votersBefore: ['n1', 'n2', 'n3'],
    });
    expect(report['commitIndex']).toBeGreaterThan(30);
    expect(report['lastIndex']).toBeGreaterThanOrEqual(report['commitIndex']);
    expect(report['appliedIndex']).toBeLessThanOrEqual(report['commitIndex']);
    expect(recovered.stdout).toContain('is now a ONE-NODE CLUSTER');
    expect(recovered.stdout).toContain(
      `last index ${report['lastIndex']}, commit index ${report['commitIndex']}, applied index ${report['appliedIndex']}`,
    );
    expect(recovered.stdout).toContain('is LOST');

    // It starts as a one-node cluster holding every acknowledged message.
    c.spawnNode(survivor, { peers: [survivor] });
    await c.waitReady(survivor);
    const alone = await c.status(survivor);
    expect(alone.role).toBe('leader');
    expect(roles(alone.members)).toEqual([`${survivor}:voter`]);
    expect([...(await receiveAll(c, survivor, queueUrl, acknowledged.length))].sort()).toEqual(
      [...acknowledged].sort(),
    );
    const after = await sqsCall(c, survivor, 'SendMessage', { QueueUrl: queueUrl, MessageBody: 'after recovery' });
    expect(after.status, JSON.stringify(after.json)).toBe(200);

    // Grown back to three with new, empty nodes under the old ids.
    for (const id of lost) {
      await c.allocate(id);
      c.spawnNode(id, { peers: [survivor], join: true });
      const added = await raftqCli(
        'members',
        'add',
        `${id}=127.0.0.1:${c.spec(id).raftPort}`,
        '--admin',
        `127.0.0.1:${c.spec(survivor).adminPort}`,
      );
      expect(added.code, added.stderr).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ id, status: 'voter' });
      await c.waitReady(id);
    }
    const statuses = await c.converged();
    for (const status of statuses) expect(roles(status.members)).toEqual(['n1:voter', 'n2:voter', 'n3:voter']);

    // It works as a three-node cluster: without the survivor, the two new nodes hold the quorum
    // and the data.
    await c.kill(survivor);
    const newcomer = lost[0] as string;
    await c.leader(30_000);
    await waitFor(
      async () =>
        (await sqsCall(c, newcomer, 'SendMessage', { QueueUrl: queueUrl, MessageBody: 'three again' })).status === 200,
      30_000,
      'a send through a new node',
    );
    // The 30 received earlier are still invisible; the two sent since are there.
    const visible = await receiveAll(c, newcomer, queueUrl, 2);
    expect([...visible].sort()).toEqual(['after recovery', 'three again']);
  }, 180_000);
});
