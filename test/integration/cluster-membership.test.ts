import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSecret, ProcessCluster, waitFor } from './cluster-harness.js';

const run = promisify(execFile);
const mainScript = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;

/** Runs the raftq CLI against node `id`'s admin port. */
async function raftq(cluster: ProcessCluster, id: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [mainScript, ...args, '--admin', `127.0.0.1:${cluster.spec(id).adminPort}`],
    {
      env: { ...process.env, RAFTQ_CLUSTER_SECRET: clusterSecret },
      timeout: 90_000,
    },
  );
  return stdout;
}

/** The index of every snapshot a node's log says it installed from the leader. */
function installedSnapshotIndexes(logText: string): number[] {
  return logText
    .split('\n')
    .filter((line) => line.includes('installed a snapshot from the leader'))
    .map((line) => (JSON.parse(line) as { index: number }).index);
}

describe('membership changes on a cluster of real processes', () => {
  let cluster: ProcessCluster;
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3, ['--snapshot-threshold-entries', '200']);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('adds a fourth node as a learner that becomes a voter once caught up', async () => {
    for (let i = 0; i < 30; i++) await cluster.put(`n${(i % 3) + 1}`, `before-${i}`, `${i}`);
    const spec = await cluster.allocate('n4');
    cluster.spawnNode('n4', { peers: ['n1', 'n2', 'n3'], join: true });
    // Ask a follower: the call is forwarded to the leader.
    const leader = await cluster.leader();
    const follower = ['n1', 'n2', 'n3'].find((id) => id !== leader)!;
    const answer = JSON.parse(await raftq(cluster, follower, 'members', 'add', `n4=127.0.0.1:${spec.raftPort}`)) as {
      status: string;
    };
    expect(answer.status).toBe('voter');
    await cluster.waitReady('n4');
    const statuses = await cluster.converged();
    for (const status of statuses)
      expect([status.id, ...status.members.map((m) => `${m.id}:${m.role}`).sort()], JSON.stringify(statuses)).toEqual([
        status.id,
        'n1:voter',
        'n2:voter',
        'n3:voter',
        'n4:voter',
      ]);
    expect(cluster.logText(leader)).toContain('promoting a caught-up learner to voter');
    const keys = await cluster.keys('n4', { linearizable: true });
    for (let i = 0; i < 30; i++) expect(keys.get(`before-${i}`)).toBe(`${i}`);
    expect((await cluster.put('n4', 'via-n4', 'yes')).kind).toBe('committed');
    // Only index 1 was compacted (at the leader's first apply, so that a joiner gets the founding
    // configuration by snapshot); the rest of the log stays, so followers a little behind need none.
    // A founding member that came up after index 1 was compacted gets that founding snapshot too
    // (how fast the processes start decides it), never a later one.
    const leaderStatus = await cluster.status(leader);
    expect(leaderStatus.firstIndex).toBe(2);
    expect(leaderStatus.snapshotIndex).toBeGreaterThanOrEqual(1);
    expect(cluster.logText('n4')).toContain('installed a snapshot from the leader');
    for (const id of ['n1', 'n2', 'n3'])
      expect(
        installedSnapshotIndexes(cluster.logText(id)).filter((index) => index > 1),
        id,
      ).toEqual([]);
  });

  it('transfers leadership on request', async () => {
    const leader = await cluster.leader();
    const target = ['n1', 'n2', 'n3', 'n4'].find((id) => id !== leader)!;
    await raftq(cluster, leader, 'leader', 'transfer', target);
    expect(await cluster.leader()).toBe(target);
  });

  it('removes a member, and the rest keep committing and agree on the state', async () => {
    const leader = await cluster.leader();
    const removed = ['n1', 'n2', 'n3', 'n4'].find((id) => id !== leader)!;
    await raftq(cluster, leader, 'members', 'remove', removed);
    await waitFor(
      async () => !(await cluster.status(leader)).members.some((m) => m.id === removed),
      10_000,
      `${removed} to leave the configuration`,
    );
    await cluster.kill(removed);
    const remaining = ['n1', 'n2', 'n3', 'n4'].filter((id) => id !== removed);
    for (const id of remaining) expect((await cluster.put(id, `after-remove-${id}`, id)).kind).toBe('committed');
    const statuses = await cluster.converged();
    expect(statuses.map((s) => s.id).sort()).toEqual(remaining.sort());
    for (const status of statuses) expect(status.members.map((m) => m.id).sort()).toEqual(remaining.sort());
    // Three voters remain: losing one more still leaves a quorum.
    const another = remaining.find((id) => id !== (statuses.find((s) => s.role === 'leader')?.id ?? ''))!;
    await cluster.kill(another);
    const survivor = remaining.find((id) => id !== another)!;
    expect((await cluster.put(survivor, 'with-two-of-three', 'ok')).kind).toBe('committed');
  });

  it('prints a node status with `raftq status`', async () => {
    const leader = await cluster.leader();
    const status = JSON.parse(await raftq(cluster, leader, 'status')) as { id: string; role: string };
    expect(status).toMatchObject({ id: leader, role: 'leader' });
  });
});
