import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { isRetryable } from '../../src/base/errors.js';
import { NotMemberError } from '../../src/cluster/not-member-error.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { freePort } from '../support/ports.js';
import { InProcessCluster, putTxn, waitUntil } from './support/in-process-cluster.js';

/** The error a call ends with (a node that waited for a leader would end with NoLeaderError instead). */
async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('membership of nodes that join or come back empty', () => {
  let cluster: InProcessCluster | null = null;
  afterEach(async () => {
    await cluster?.close();
    cluster = null;
  });

  describe('a node started with --join', () => {
    it('refuses reads and commits at once with a retryable not-a-member error until a member adds it, then serves them', async () => {
      cluster = await InProcessCluster.start(3);
      const leader = await cluster.leader();
      const address = `127.0.0.1:${await freePort()}`;
      const joiner = await cluster.startNode('n4', { join: true, raftListen: address });
      expect(joiner.isMember()).toBe(false);

      const txn = {
        txnId: 'via-joiner',
        startTsUs: 0,
        nowMs: joiner.nowMs(),
        readKeys: [],
        writes: [{ kind: 'put' as const, key: encodeKey(['t', 'k']), value: new Uint8Array([1]) }],
      };
      const attempts: (() => Promise<unknown>)[] = [
        () => joiner.commit(txn),
        () => joiner.readView({ linearizable: true }),
        () => joiner.readView({ linearizable: false }),
        () => joiner.readIndex(),
      ];
      for (const attempt of attempts) {
        const result = await errorOf(attempt);
        expect(result).toBeInstanceOf(NotMemberError);
        expect(isRetryable(result)).toBe(true);
        expect((result as Error).message).toContain('n4 is not yet a member of the cluster');
      }
      expect(await joiner.isReady(1_000)).toBe(false);

      expect(await leader.membershipAdmin.addMember('n4', address)).toBe('voter');
      await waitUntil(() => joiner.isMember(), 10_000, 'n4 to learn that it was added');
      await waitUntil(() => joiner.isReady(1_000), 10_000, 'n4 to be ready');
      const view = await joiner.readView({ linearizable: true });
      view.release();
      expect((await joiner.commit({ ...txn, startTsUs: view.ts, nowMs: joiner.nowMs() })).kind).toBe('committed');
    });
  });

  describe('a removal asked of a node that is not a member', () => {
    it('is not confirmed from the node’s own empty view while the member is still there', async () => {
      cluster = await InProcessCluster.start(3);
      const leader = await cluster.leader();
      const joiner = await cluster.startNode('n4', { join: true, raftListen: `127.0.0.1:${await freePort()}` });
      expect(joiner.isMember()).toBe(false);
      const victim = [...cluster.nodes.keys()].find((id) => id !== leader.id && id !== 'n4') as string;

      // The joiner knows no configuration and no leader: an answer of "removed" would have an
      // operator wipe a voter that is still one.
      const result = await errorOf(() => joiner.membershipAdmin.removeMember(victim));
      expect(result).toBeInstanceOf(Error);
      expect(isRetryable(result)).toBe(true);
      expect(leader.membership().confState.voters).toContain(victim);
    });
  });

  describe('a member wiped and started with --join without being removed first', () => {
    it('learns the founding configuration from a snapshot, not from a log that does not hold it', async () => {
      cluster = await InProcessCluster.start(3);
      const leader = await cluster.leader();
      for (let i = 0; i < 5; i++) await leader.commit(await putTxn(leader, `before-wipe-${i}`, `k${i}`, 'v'));
      const [wiped, other] = [...cluster.nodes.keys()].filter((id) => id !== leader.id) as [string, string];
      await cluster.stopNode(wiped);
      rmSync(cluster.config(wiped).dataDir, { recursive: true, force: true });

      // Still a voter in the configuration, so nobody adds it. The leader of the term keeps the
      // match it had for it (Raft assumes no node forgets its log); a new leader probes it from
      // scratch and finds it empty. Its log from index 1 holds no conf change for the founders:
      // only a snapshot carries them.
      const node = await cluster.startNode(wiped, { join: true });
      expect(node.isMember()).toBe(false);
      await leader.membershipAdmin.transferLeader(other);
      await waitUntil(() => cluster?.node(other).isLeader() === true, 10_000, `${other} to lead`);
      await waitUntil(() => node.isMember(), 15_000, `${wiped} to learn the configuration`);
      expect(node.membership().confState.voters).toEqual(['n1', 'n2', 'n3']);
      await waitUntil(() => node.isReady(1_000), 15_000, `${wiped} to be ready`);
    });
  });
});
