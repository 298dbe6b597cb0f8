/**
 * `raftq status --cluster` on a real three-node cluster, asked of a follower: one row per member
 * with its role, the leader's term and, for each follower, how long ago the leader last heard from
 * it; `--output json` prints GET /cluster's answer, whose match index and last contact are the
 * leader's even though a follower answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessCluster, waitFor } from '../integration/cluster-harness.js';
import { runCli } from '../deploy/support/node-process.js';

interface MemberJson {
  id: string;
  address: string;
  membership: string;
  isSelf: boolean;
  health: string;
  role?: string;
  term?: number;
  matchIndex?: number;
  lastContactMs?: number | null;
}

describe('raftq status --cluster', () => {
  let cluster: ProcessCluster;
  let leader = '';
  let follower = '';
  let followerAdmin = '';

  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
    leader = await cluster.leader();
    follower = ['n1', 'n2', 'n3'].find((id) => id !== leader) as string;
    followerAdmin = `127.0.0.1:${cluster.spec(follower).adminPort}`;
    // The leader has heard from both followers once a heartbeat round went by.
    await waitFor(
      async () => {
        const view = (await cluster.admin(follower, 'GET', '/cluster')).json as { members: MemberJson[] };
        return view.members.filter((m) => m.id !== leader).every((m) => typeof m.lastContactMs === 'number');
      },
      20_000,
      'the leader to have heard from both followers',
    );
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it("prints one row per member, with the roles, the leader's term and a last contact for each follower", async () => {
    const { term } = await cluster.status(leader);
    const run = await runCli(['status', '--cluster', '--admin', followerAdmin]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toContain(`leader ${leader}, term ${term}`);
    expect(lines[0]).toContain(`as ${leader} (the leader) sees them`);
    const header = (lines[1] ?? '').split(/\s{2,}/);
    expect(header).toEqual([
      'ID',
      'ADDRESS',
      'ROLE',
      'TERM',
      'COMMIT',
      'APPLIED',
      'LAG',
      'MATCH',
      'LAST CONTACT',
      'HEALTH',
    ]);
    const rows = lines.slice(2).map((line) => line.trim().split(/\s{2,}/));
    expect(rows.map((row) => row[0])).toEqual(['n1', 'n2', 'n3'].map((id) => (id === follower ? `${id}*` : id)));
    for (const row of rows) {
      const id = (row[0] as string).replace('*', '');
      expect(row[1]).toBe(`127.0.0.1:${cluster.spec(id).raftPort}`);
      expect(row[2]).toBe(id === leader ? 'leader' : 'follower');
      expect(row[3]).toBe(String(term));
      expect(row[7]).toMatch(/^\d+$/);
      if (id === leader) expect(row[8]).toBe('-');
      else expect(row[8]).toMatch(/^(\d+ms|\d+\.\ds)$/);
      expect(row[9]).toBe('ok');
    }
  }, 60_000);

  it("--output json gives GET /cluster's answer, with the leader's view of every member", async () => {
    const run = await runCli(['status', '--cluster', '--output', 'json', '--admin', followerAdmin]);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as {
      id: string;
      leader: string;
      progressFrom: string;
      members: MemberJson[];
    };
    const api = (await cluster.admin(follower, 'GET', '/cluster')).json as typeof printed;
    // Last contact moves between two calls; everything else of a quiet cluster stays.
    const steady = (view: typeof printed) => ({
      ...view,
      members: view.members.map(({ lastContactMs: _ms, ...rest }) => rest),
    });
    expect(steady(printed)).toEqual(steady(api));
    expect(printed.id).toBe(follower);
    expect(printed.progressFrom).toBe(leader);
    for (const member of printed.members) {
      expect(typeof member.matchIndex).toBe('number');
      if (member.id === leader) expect(member.lastContactMs).toBe(0);
      else expect(member.lastContactMs).toEqual(expect.any(Number));
    }
  }, 60_000);

  it('refuses an --output it does not know', async () => {
    const run = await runCli(['status', '--cluster', '--output', 'yaml', '--admin', followerAdmin]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--output must be table or json');
  }, 60_000);
});
