import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { InProcessCluster, waitUntil } from './support/in-process-cluster.js';

describe('a member that missed the addition of another', () => {
  let cluster: InProcessCluster | null = null;
  afterEach(async () => {
    await cluster?.close();
    cluster = null;
  });

  it('answers the added member once it leads, learning its address from its messages, and catches up', async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const lagging = [...cluster.nodes.keys()].find((id) => id !== leader.id) as string;
    await cluster.stopNode(lagging);

    // n4 joins while `lagging` is down: neither its --peers nor its log name n4.
    const address = `127.0.0.1:${await freePort()}`;
    const joiner = await cluster.startNode('n4', { join: true, raftListen: address });
    expect(await leader.membershipAdmin.addMember('n4', address)).toBe('voter');
    await leader.membershipAdmin.transferLeader('n4');
    await waitUntil(() => joiner.isLeader(), 10_000, 'n4 to lead');

    const restarted = await cluster.startNode(lagging);
    expect(restarted.membership().addresses['n4']).toBeUndefined();
    // It can catch up only by answering n4, whose address it has not applied yet.
    await waitUntil(
      () => restarted.membership().confState.voters.includes('n4'),
      15_000,
      `${lagging} to apply the addition of n4`,
    );
    expect(restarted.membership().addresses['n4']).toBe(address);
    await waitUntil(() => restarted.appliedIndex() >= joiner.appliedIndex(), 10_000, `${lagging} to catch up with n4`);
  });
});
