import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { clusterSecret, ProcessCluster, sqsCall } from './cluster-harness.js';

const run = promisify(execFile);
const mainScript = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;

/** Runs the raftq CLI against node `id`'s admin port and parses its JSON answer. */
async function raftq(cluster: ProcessCluster, id: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(
    process.execPath,
    [mainScript, ...args, '--admin', `127.0.0.1:${cluster.spec(id).adminPort}`],
    {
      env: { ...process.env, RAFTQ_CLUSTER_SECRET: clusterSecret },
      timeout: 90_000,
    },
  );
  return JSON.parse(stdout);
}

/** A queue round trip through node `id`: create, send, receive the message back. */
async function expectSqsServes(cluster: ProcessCluster, id: string, queueName: string): Promise<void> {
  const created = await sqsCall(cluster, id, 'CreateQueue', { QueueName: queueName });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const queueUrl = created.json.QueueUrl as string;
  const sent = await sqsCall(cluster, id, 'SendMessage', { QueueUrl: queueUrl, MessageBody: `hello ${queueName}` });
  expect(sent.status, JSON.stringify(sent.json)).toBe(200);
  const received = await sqsCall(cluster, id, 'ReceiveMessage', { QueueUrl: queueUrl, WaitTimeSeconds: 5 });
  expect(received.status, JSON.stringify(received.json)).toBe(200);
  expect(received.json.Messages.map((m: { Body: string }) => m.Body)).toEqual([`hello ${queueName}`]);
}

function roles(members: { id: string; role: string }[]): string[] {
  return members.map((m) => `${m.id}:${m.role}`).sort();
}

/**
 * `raftq members add` with an address where nothing listens (a typo, a machine not booted yet).
 * The add call waits its full 30 s for a promotion before it answers "learner": by then the leader
 * has run its promotion check hundreds of times (every 5 ticks of 20 ms), far past the moment the
 * old rule promoted such a member (~100 ms after the add).
 */
describe.concurrent('adding a member that is not there', () => {
  const clusters: ProcessCluster[] = [];
  afterAll(async () => {
    await Promise.all(clusters.map((cluster) => cluster.close()));
  });

  it('leaves a one-node cluster its leader and its service, and the member can be removed', async () => {
    const cluster = await ProcessCluster.start(1);
    clusters.push(cluster);
    const before = await cluster.status('n1');
    expect(before.role).toBe('leader');
    const nowhere = `127.0.0.1:${await freePort()}`;

    const added = await raftq(cluster, 'n1', 'members', 'add', `n2=${nowhere}`);
    expect(added).toEqual({ id: 'n2', address: nowhere, status: 'learner' });

    const after = await cluster.status('n1');
    expect(after.role).toBe('leader');
    expect(after.term).toBe(before.term);
    expect(roles(after.members)).toEqual(['n1:voter', 'n2:learner']);
    expect(cluster.logText('n1')).not.toContain('promoting a caught-up learner to voter');
    await expectSqsServes(cluster, 'n1', 'one-node');

    expect(await raftq(cluster, 'n1', 'members', 'remove', 'n2')).toEqual({ id: 'n2', removed: true });
    expect(roles((await cluster.status('n1')).members)).toEqual(['n1:voter']);
    await expectSqsServes(cluster, 'n1', 'one-node-after-remove');
  }, 150_000);

  it('leaves a three-node cluster three voters, so it still survives losing one, and the member can be removed', async () => {
    const cluster = await ProcessCluster.start(3);
    clusters.push(cluster);
    const leader = await cluster.leader();
    const before = await cluster.status(leader);
    const follower = ['n1', 'n2', 'n3'].find((id) => id !== leader) as string;
    const nowhere = `127.0.0.1:${await freePort()}`;

    // Asked of a follower: forwarded to the leader.
    const added = await raftq(cluster, follower, 'members', 'add', `n4=${nowhere}`);
    expect(added).toEqual({ id: 'n4', address: nowhere, status: 'learner' });
    const after = await cluster.status(leader);
    expect(after.role).toBe('leader');
    expect(after.term).toBe(before.term);
    expect(roles(after.members)).toEqual(['n1:voter', 'n2:voter', 'n3:voter', 'n4:learner']);

    // n4 counts for nothing: with one of the three voters down, two of three still commit.
    const other = ['n1', 'n2', 'n3'].find((id) => id !== leader && id !== follower) as string;
    await cluster.kill(other);
    expect((await cluster.put(leader, 'with-n4-a-learner', 'ok')).kind).toBe('committed');
    await expectSqsServes(cluster, follower, 'three-nodes');

    expect(await raftq(cluster, follower, 'members', 'remove', 'n4')).toEqual({ id: 'n4', removed: true });
    expect(roles((await cluster.status(leader)).members)).toEqual(
      [`${leader}:voter`, `${follower}:voter`, `${other}:voter`].sort(),
    );
  }, 150_000);
});
