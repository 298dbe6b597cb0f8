import { afterEach, describe, expect, it } from 'vitest';
import { isRetryable } from '../../src/base/errors.js';
import { raftLimits } from '../../src/base/limits.js';
import type { StateStore } from '../../src/cluster/state-store.js';
import { encodeKey } from '../../src/storage/key-codec.js';
import { InProcessCluster, putTxn, waitUntil } from './support/in-process-cluster.js';

describe('ClusterNode (three nodes in one process)', () => {
  let cluster: InProcessCluster | null = null;
  afterEach(async () => {
    await cluster?.close();
    cluster = null;
  });

  it('elects one leader and commits transactions proposed on every node', async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const outcomes = [];
    for (const id of ['n1', 'n2', 'n3']) {
      const node = cluster.node(id);
      outcomes.push(await node.commit(await putTxn(node, `txn-${id}`, id, `from ${id}`)));
    }
    expect(outcomes.map((o) => o.kind)).toEqual(['committed', 'committed', 'committed']);
    const leaders = [...cluster.nodes.values()].filter((n) => n.isLeader());
    expect(leaders.map((n) => n.id)).toEqual([leader.id]);
    // A write committed through a follower is readable on that follower at once.
    const view = await cluster.node('n2').readView({ linearizable: false });
    expect(new TextDecoder().decode(await view.get(encodeKey(['t', 'n2'])))).toBe('from n2');
    view.release();
    const target = leader.appliedIndex();
    await waitUntil(
      () => [...cluster!.nodes.values()].every((n) => n.appliedIndex() >= target),
      5_000,
      'every node to apply',
    );
    const digests = await Promise.all([...cluster.nodes.values()].map(async (n) => (await n.status()).stateDigest));
    expect(new Set(digests).size).toBe(1);
  });

  it('answers a retried txnId with its first outcome and applies it once', async () => {
    cluster = await InProcessCluster.start(3);
    await cluster.leader();
    const follower = [...cluster.nodes.values()].find((n) => !n.isLeader())!;
    const txn = await putTxn(follower, 'same-id', 'k', 'v1');
    const first = await follower.commit(txn);
    const again = await follower.commit({
      ...txn,
      writes: [{ kind: 'put', key: encodeKey(['t', 'k']), value: new TextEncoder().encode('v2') }],
    });
    expect(again).toEqual(first);
    const view = await follower.readView({ linearizable: true });
    expect(new TextDecoder().decode(await view.get(encodeKey(['t', 'k'])))).toBe('v1');
    view.release();
  });

  it('fails commits and linearizable reads with a retryable error within a bound when no leader can be elected', async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const others = [...cluster.nodes.keys()].filter((id) => id !== leader.id);
    for (const id of others) await cluster.stopNode(id);
    // CheckQuorum: a leader that cannot hear from a quorum steps down.
    await waitUntil(() => !leader.isLeader(), 5_000, 'the isolated leader to step down');
    const started = Date.now();
    const txn = await putTxn(leader, 'lonely', 'k', 'v');
    const [failure, readFailure] = await Promise.all([
      leader.commit(txn).catch((error: unknown) => error),
      leader.readView({ linearizable: true }).catch((error: unknown) => error),
    ]);
    expect(isRetryable(failure)).toBe(true);
    expect(isRetryable(readFailure)).toBe(true);
    expect(Date.now() - started).toBeLessThan(raftLimits.proposalTimeoutMs.value + 2_000);
  });

  it("shifts one node's cluster clock by an injected offset, and the apply step rejects its skewed txns", async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const follower = [...cluster.nodes.values()].find((n) => !n.isLeader())!;
    const before = follower.nowMs();
    follower.clock.setArtificialOffsetMs(60_000);
    expect(follower.nowMs() - before).toBeGreaterThanOrEqual(59_000);
    expect(Math.abs(leader.nowMs() - before)).toBeLessThan(5_000);
    const outcome = await follower.commit(await putTxn(follower, 'skewed', 'k', 'v'));
    expect(outcome.kind).toBe('clock-skew');
    follower.clock.setArtificialOffsetMs(0);
    expect((await follower.commit(await putTxn(follower, 'fixed', 'k', 'v'))).kind).toBe('committed');
  });
  it('keeps the values it applied in its newest-version cache while it leads, and only their versions as a follower', async () => {
    cluster = await InProcessCluster.start(3);
    const leader = await cluster.leader();
    const states = new Map<string, StateStore>();
    for (const [id, node] of cluster.nodes)
      node.observeState({ onApplied: () => {}, onStateOpened: (state) => states.set(id, state) });
    await waitUntil(() => states.size === 3, 5_000, 'every node to report its state');
    const cacheBytes = () => new Map([...states].map(([id, state]) => [id, state.mvcc.newestVersionCacheSize.bytes]));
    const before = cacheBytes();
    const count = 20;
    const valueBytes = 2_000;
    for (let i = 0; i < count; i++)
      expect((await leader.commit(await putTxn(leader, `big-${i}`, `big-${i}`, 'v'.repeat(valueBytes)))).kind).toBe(
        'committed',
      );
    const target = leader.appliedIndex();
    await waitUntil(
      () => [...cluster!.nodes.values()].every((n) => n.appliedIndex() >= target),
      5_000,
      'every node to apply',
    );
    const after = cacheBytes();
    const grewBy = (id: string) => (after.get(id) ?? 0) - (before.get(id) ?? 0);
    expect(grewBy(leader.id)).toBeGreaterThanOrEqual(count * valueBytes);
    for (const id of cluster.nodes.keys())
      if (id !== leader.id) expect(grewBy(id)).toBeLessThan((count * valueBytes) / 2);
    // What the follower did not keep it still answers, from the engine.
    const follower = [...cluster.nodes.values()].find((n) => n !== leader);
    const view = await follower!.readView({ linearizable: false });
    expect((await view.get(encodeKey(['t', 'big-7'])))?.length).toBe(valueBytes);
    view.release();
  });
});
