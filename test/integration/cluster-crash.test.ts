import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { ProcessCluster, waitFor } from './cluster-harness.js';

const ids = ['n1', 'n2', 'n3'];
const seed = Number(process.env['RAFTQ_CRASH_SEED'] ?? Date.now() % 1_000_000);

describe(`kill -9 at random moments (seed ${seed}; replay with RAFTQ_CRASH_SEED=${seed})`, () => {
  let cluster: ProcessCluster;
  beforeAll(async () => {
    // A tiny snapshot threshold: restarts after a short outage already need a snapshot, so kills
    // land during appends, during apply and during snapshot installs.
    cluster = await ProcessCluster.start(3, ['--snapshot-threshold-entries', '25', '--snapshot-catch-up-entries', '3']);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('loses no committed entry and applies none twice', { timeout: 120_000 }, async () => {
    const prng = new SeededPrng(seed);
    const acknowledged = new Map<string, string>();
    let writes = 0;
    let isWriting = true;
    const outcomes = new Map<string, number>();
    const writer = (async () => {
      while (isWriting) {
        const live = ids.filter((id) => cluster.isRunning(id));
        const key = `w${writes}`;
        const value = `v${writes}`;
        writes += 1;
        const outcome = await cluster.putAnywhere(key, value, { first: live[prng.intBelow(live.length)] as string });
        outcomes.set(outcome.kind, (outcomes.get(outcome.kind) ?? 0) + 1);
        if (outcome.kind === 'committed') acknowledged.set(key, value);
      }
    })();
    // Surface a writer failure at the end instead of as an unhandled rejection.
    let writerError: unknown = null;
    const writerResult = writer.then(
      () => null,
      (error: unknown) => (writerError = error),
    );

    for (let round = 0; round < 6; round++) {
      const victim = ids[prng.intBelow(ids.length)] as string;
      // Half the rounds keep the victim down while enough is written to compact past it.
      const isLongOutage = prng.intBelow(2) === 0;
      await delay(prng.intBelow(300));
      await cluster.kill(victim);
      const writtenAtKill = writes;
      if (isLongOutage)
        await waitFor(() => writes >= writtenAtKill + 30 || writerError !== null, 30_000, 'writes during the outage');
      else await delay(prng.intBelow(300));
      cluster.spawnNode(victim, { peers: ids });
      if (prng.intBelow(2) === 0) {
        // Kill it again while it is catching up (receiving or installing a snapshot, replaying the log).
        await delay(50 + prng.intBelow(400));
        await cluster.kill(victim);
        cluster.spawnNode(victim, { peers: ids });
      }
      await cluster.waitReady(victim);
      if (process.env['RAFTQ_TEST_VERBOSE'])
        console.log(`round ${round}: ${victim} ${isLongOutage ? 'long' : 'short'} outage, ${writes} writes`);
    }
    isWriting = false;
    expect(await writerResult).toBeNull();
    expect([...outcomes.keys()]).toEqual(['committed']);

    const statuses = await cluster.converged(30_000);
    expect(new Set(statuses.map((s) => s.stateDigest)).size).toBe(1);
    expect(acknowledged.size).toBeGreaterThan(50);
    for (const id of ids) {
      const keys = await cluster.keys(id, { linearizable: true });
      const missing = [...acknowledged].filter(([key, value]) => keys.get(key) !== value).map(([key]) => key);
      expect(missing, `acknowledged writes missing on ${id}`).toEqual([]);
      // A replayed entry would trip the store's applied-index assertion and stop the node.
      expect(cluster.logText(id)).not.toMatch(/"level":60|AssertionFailedError/);
    }
    const installs = ids.filter((id) => cluster.logText(id).includes('installed a snapshot from the leader'));
    expect(installs.length).toBeGreaterThan(0);
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
