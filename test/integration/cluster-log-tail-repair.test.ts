import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { SeededPrng } from '../../src/base/prng.js';
import { damageLogTail } from '../../jepsen-like/nemesis/log-tail-damage.js';
import { ProcessCluster, waitFor, type NodeStatusJson } from './cluster-harness.js';

const ids = ['n1', 'n2', 'n3'];

interface RepairStatus extends NodeStatusJson {
  lastIndex: number;
  capabilities: string[];
  logTailRepair: { state: string; keptLastIndex: number | null; leaderCommitIndexSeen: number };
}

describe('a follower whose Raft log tail was damaged while it was down', () => {
  let cluster: ProcessCluster;
  const acknowledged = new Map<string, string>();
  let written = 0;

  async function writeSome(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const key = `k${written++}`;
      const outcome = await cluster.putAnywhere(key, `v-${key}`);
      if (outcome.kind === 'committed') acknowledged.set(key, `v-${key}`);
    }
  }

  async function status(id: string): Promise<RepairStatus> {
    return (await cluster.status(id)) as RepairStatus;
  }

  async function expectEveryAcknowledgedWrite(on: readonly string[]): Promise<void> {
    for (const id of on) {
      const keys = await cluster.keys(id, { linearizable: true });
      const missing = [...acknowledged].filter(([key, value]) => keys.get(key) !== value).map(([key]) => key);
      expect(missing, `acknowledged writes missing on ${id}`).toEqual([]);
    }
  }

  beforeAll(async () => {
    cluster = await ProcessCluster.start(3);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  for (const how of ['truncate', 'flip'] as const) {
    it(
      `(${how}) detects it, repairs from the leader without voting meanwhile, and keeps every acknowledged write`,
      { timeout: 120_000 },
      async () => {
        const leader = await cluster.leader();
        const victim = ids.find((id) => id !== leader) as string;
        expect((await status(victim)).capabilities).toContain('log-tail-repair');
        await writeSome(40);
        const lastIndexBefore = (await status(victim)).lastIndex;
        await cluster.kill(victim);
        const damage = damageLogTail(
          join(dirname(cluster.logFile(victim)), victim),
          how,
          1500,
          new SeededPrng(how === 'truncate' ? 5 : 6),
        );
        expect(damage).toBeDefined();
        await writeSome(20);
        cluster.spawnNode(victim, { peers: ids });

        await waitFor(
          async () => (await status(victim).catch(() => null))?.logTailRepair.state === 'repaired',
          30_000,
          `${victim} to repair its log tail`,
        );
        const log = cluster.logText(victim);
        expect(log).toMatch(/the Raft log tail was damaged: cut back/);
        expect(log).toMatch(/the Raft log tail is repaired/);
        const report = JSON.parse(
          log
            .split('\n')
            .filter((line) => line.includes('the Raft log tail was damaged'))
            .at(-1) as string,
        ).repair;
        expect(report.walDamage).not.toBeNull();
        expect(report.keptLastIndex).toBeLessThan(lastIndexBefore);
        await cluster.waitReady(victim);
        const statuses = await cluster.converged(30_000);
        expect(new Set(statuses.map((s) => s.stateDigest)).size).toBe(1);
        await expectEveryAcknowledgedWrite(ids);

        // The node's acknowledgements count toward commit again: with the leader gone, the
        // repaired node and the third one elect a leader that still has every acknowledged write.
        const oldLeader = await cluster.leader();
        await cluster.kill(oldLeader);
        await writeSome(10);
        const survivors = ids.filter((id) => id !== oldLeader);
        await expectEveryAcknowledgedWrite(survivors);
        cluster.spawnNode(oldLeader, { peers: ids });
        await cluster.waitReady(oldLeader);
        await cluster.converged(30_000);
        await expectEveryAcknowledgedWrite(ids);
      },
    );
  }
});
