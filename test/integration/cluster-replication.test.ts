import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessCluster, waitFor } from './cluster-harness.js';

// Small snapshot threshold so a stopped follower falls behind the compacted log within seconds.
const snapshotArgs = ['--snapshot-threshold-entries', '40', '--snapshot-catch-up-entries', '5'];

describe('a three-node cluster of real processes', () => {
  let cluster: ProcessCluster;
  beforeAll(async () => {
    cluster = await ProcessCluster.start(3, snapshotArgs);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('elects one leader and commits transactions proposed on every node', async () => {
    const leader = await cluster.leader();
    expect(['n1', 'n2', 'n3']).toContain(leader);
    for (const id of ['n1', 'n2', 'n3']) {
      const outcome = await cluster.put(id, `first-${id}`, `v-${id}`);
      expect(outcome.kind).toBe('committed');
    }
    const statuses = await cluster.converged();
    expect(statuses.map((s) => s.members.map((m) => `${m.id}:${m.role}`).join(','))).toEqual(
      Array(3).fill('n1:voter,n2:voter,n3:voter'),
    );
    for (const id of ['n1', 'n2', 'n3']) {
      const keys = await cluster.keys(id, { linearizable: true });
      expect([...keys.keys()].sort()).toEqual(['first-n1', 'first-n2', 'first-n3']);
    }
  });

  it('keeps committing on the other two after kill -9 of the leader, and the restarted leader catches up from the log', async () => {
    const oldLeader = await cluster.leader();
    const survivors = ['n1', 'n2', 'n3'].filter((id) => id !== oldLeader);
    await cluster.kill(oldLeader);
    // How fast the survivors elect is measured by the benchmarks, not asserted here: a busy machine
    // may take longer, and what must hold is that they commit at all.
    const outcome = await cluster.put(survivors[0] as string, 'after-kill', 'x');
    expect(outcome.kind).toBe('committed');
    const newLeader = await cluster.leader();
    expect(survivors).toContain(newLeader);
    for (let i = 0; i < 10; i++)
      expect((await cluster.put(survivors[i % 2] as string, `during-${i}`, `${i}`)).kind).toBe('committed');

    cluster.spawnNode(oldLeader, { peers: ['n1', 'n2', 'n3'] });
    await cluster.waitReady(oldLeader);
    const statuses = await cluster.converged();
    const restarted = statuses.find((s) => s.id === oldLeader)!;
    expect(restarted.role).toBe('follower');
    expect(cluster.logText(oldLeader)).not.toContain('installed a snapshot from the leader');
    const keys = await cluster.keys(oldLeader, { linearizable: true });
    for (let i = 0; i < 10; i++) expect(keys.get(`during-${i}`)).toBe(`${i}`);
    expect(keys.get('after-kill')).toBe('x');
  });

  it('catches a stopped follower up by snapshot once the log it missed was compacted', async () => {
    const leader = await cluster.leader();
    const follower = ['n1', 'n2', 'n3'].find((id) => id !== leader)!;
    expect(await cluster.stop(follower)).toBe(0);
    for (let i = 0; i < 120; i++) await cluster.put(leader, `lag-${i}`, `${i}`);
    await waitFor(async () => (await cluster.status(leader)).firstIndex > 1, 10_000, 'the leader to compact its log');
    const leaderStatus = await cluster.status(leader);
    expect(leaderStatus.snapshotIndex).toBeGreaterThan(0);

    cluster.spawnNode(follower, { peers: ['n1', 'n2', 'n3'] });
    await cluster.waitReady(follower);
    const statuses = await cluster.converged();
    expect(new Set(statuses.map((s) => s.stateDigest)).size).toBe(1);
    expect(cluster.logText(follower)).toContain('installed a snapshot from the leader');
    const keys = await cluster.keys(follower, { linearizable: true });
    for (let i = 0; i < 120; i++) expect(keys.get(`lag-${i}`)).toBe(`${i}`);
  });

  it('drains and exits 0 on SIGTERM, handing leadership to another node', async () => {
    const leader = await cluster.leader();
    expect(await cluster.stop(leader)).toBe(0);
    expect(cluster.logText(leader)).toContain('handing leadership over');
    const next = await cluster.leader(5_000);
    expect(next).not.toBe(leader);
    cluster.spawnNode(leader, { peers: ['n1', 'n2', 'n3'] });
    await cluster.waitReady(leader);
    await cluster.converged();
  });
});
