/**
 * The operations of docs/OPERATIONS.md on three real processes, one after another on one cluster:
 * a rolling restart under traffic, replacing a failed node with an empty one, and a backup taken
 * from the running cluster restored into a fresh one-node cluster.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dir.js';
import { NodeProcess, mainScript, runCli, waitFor } from './support/node-process.js';
import { BackgroundSends, FailoverSqs } from './support/sqs-traffic.js';

const secret = 'deploy-test-secret';
const env = { ...process.env, RAFTQ_CLUSTER_SECRET: secret, RAFTQ_LOG_LEVEL: 'info' };
const secretHeaders = { 'x-raftq-cluster-secret': secret };

interface Slot {
  readonly id: string;
  readonly sqs: string;
  readonly admin: string;
  readonly raft: string;
  dataDir: string;
  process: NodeProcess | null;
  /** Clients send here (a load balancer's pool): only once the node answered /ready. */
  isInRotation: boolean;
}

describe('operating a three-node cluster', () => {
  const dir = makeTempDir('deploy-ops');
  const slots = new Map<string, Slot>();
  let sqs: FailoverSqs;
  let founders = '';

  async function allocate(id: string): Promise<Slot> {
    const [sqsPort, adminPort, raftPort] = (await freePorts(3)) as [number, number, number];
    const slot: Slot = {
      id,
      sqs: `127.0.0.1:${sqsPort}`,
      admin: `127.0.0.1:${adminPort}`,
      raft: `127.0.0.1:${raftPort}`,
      dataDir: join(dir.path, id),
      process: null,
      isInRotation: false,
    };
    slots.set(id, slot);
    return slot;
  }

  function start(slot: Slot, options: { join?: boolean } = {}): NodeProcess {
    const argv = [
      mainScript,
      'serve',
      '--id',
      slot.id,
      '--data-dir',
      slot.dataDir,
      '--sqs-listen',
      slot.sqs,
      '--admin-listen',
      slot.admin,
      '--raft-listen',
      slot.raft,
      '--peers',
      founders,
    ];
    if (options.join === true) argv.push('--join');
    slot.process = new NodeProcess(slot.id, argv, env, join(dir.path, `${slot.id}.log`), slot.admin);
    return slot.process;
  }

  function liveEndpoints(): string[] {
    return [...slots.values()]
      .filter((slot) => slot.isInRotation && slot.process?.isRunning === true)
      .map((slot) => `http://${slot.sqs}`);
  }

  function running(): NodeProcess[] {
    return [...slots.values()].flatMap((slot) => (slot.process?.isRunning === true ? [slot.process] : []));
  }

  async function converged(): Promise<
    { appliedIndex: number; stateDigest: string; members: { id: string; role: string }[] }[]
  > {
    let statuses: Awaited<ReturnType<NodeProcess['status']>>[] = [];
    await waitFor(
      async () => {
        statuses = await Promise.all(running().map((node) => node.status()));
        return new Set(statuses.map((s) => `${s.appliedIndex}/${s.stateDigest}`)).size === 1;
      },
      30_000,
      'the running nodes to apply the same index with the same digest',
    );
    return statuses;
  }

  beforeAll(async () => {
    for (const id of ['n1', 'n2', 'n3']) await allocate(id);
    founders = [...slots.values()].map((slot) => `${slot.id}=${slot.raft}`).join(',');
    const nodes = [...slots.values()].map((slot) => start(slot));
    await Promise.all(nodes.map((node) => node.waitReady()));
    for (const slot of slots.values()) slot.isInRotation = true;
    sqs = new FailoverSqs(liveEndpoints);
  });

  afterAll(async () => {
    sqs?.close();
    await Promise.all([...slots.values()].map((slot) => slot.process?.kill()));
    dir.cleanup();
  });

  it('a rolling restart of all three nodes under traffic loses no acknowledged send', async () => {
    await sqs.createQueue('rolling');
    const traffic = new BackgroundSends(sqs, 'rolling', 'roll');
    await waitFor(() => traffic.acknowledged.size >= 20, 30_000, 'traffic to flow');
    for (const slot of slots.values()) {
      const before = traffic.acknowledged.size;
      // The documented step: SIGTERM hands leadership over if this node leads, then exits 0.
      // Clients keep sending to it while it stops: they fail over when it refuses.
      expect(await slot.process?.stop()).toBe(0);
      slot.isInRotation = false;
      await waitFor(() => traffic.acknowledged.size >= before + 10, 30_000, `sends to go on while ${slot.id} is down`);
      await start(slot).waitReady();
      slot.isInRotation = true;
      await waitFor(() => traffic.acknowledged.size >= before + 20, 30_000, `sends to go on after ${slot.id} is back`);
    }
    await traffic.stop();
    expect(traffic.failures).toEqual([]);
    const received = await sqs.drain('rolling', traffic.acknowledged);
    const lost = [...traffic.acknowledged].filter((body) => !received.has(body));
    expect(lost).toEqual([]);
    expect(traffic.acknowledged.size).toBeGreaterThan(60);
  });

  it('a failed node replaced by an empty one catches up to the same state', async () => {
    await sqs.createQueue('replace');
    for (let i = 0; i < 30; i++) await sqs.send('replace', `before-${i}`);
    const failed = slots.get('n3') as Slot;
    await failed.process?.kill();
    // Remove it through a survivor, then add a new node with an empty data directory.
    const removal = await runCli(['members', 'remove', 'n3', '--admin', (slots.get('n1') as Slot).admin], env);
    expect(removal.code, removal.stderr).toBe(0);
    rmSync(failed.dataDir, { recursive: true, force: true });
    slots.delete('n3');
    const replacement = await allocate('n4');
    mkdirSync(replacement.dataDir, { recursive: true });
    start(replacement, { join: true });
    for (let i = 0; i < 30; i++) await sqs.send('replace', `during-${i}`);
    const addition = await runCli(
      ['members', 'add', `n4=${replacement.raft}`, '--admin', (slots.get('n2') as Slot).admin],
      env,
    );
    expect(addition.code, addition.stderr).toBe(0);
    expect(JSON.parse(addition.stdout).status).toBe('voter');
    await replacement.process?.waitReady();
    replacement.isInRotation = true;
    const statuses = await converged();
    expect(statuses).toHaveLength(3);
    for (const status of statuses)
      expect(status.members.map((m) => `${m.id}:${m.role}`).sort()).toEqual(['n1:voter', 'n2:voter', 'n4:voter']);
    // The new node serves what was sent before it existed.
    const onlyNew = new FailoverSqs(() => [`http://${replacement.sqs}`]);
    try {
      const expected = new Set(Array.from({ length: 30 }, (_, i) => [`before-${i}`, `during-${i}`]).flat());
      const seen = await onlyNew.drain('replace', expected);
      expect([...expected].filter((body) => !seen.has(body))).toEqual([]);
    } finally {
      onlyNew.close();
    }
  });

  it('a backup taken from a running follower restores into a one-node cluster serving the same queues and messages', async () => {
    await sqs.createQueue('kept');
    const bodies = new Set(Array.from({ length: 40 }, (_, i) => `kept-${i}`));
    for (const body of bodies) await sqs.send('kept', body);
    const statuses = await Promise.all(running().map((node) => node.status()));
    const follower = statuses.find((s) => s.role === 'follower');
    expect(follower).toBeDefined();
    const file = join(dir.path, 'cluster.backup');
    // Traffic keeps going while the backup streams: the cluster is not stopped.
    const traffic = new BackgroundSends(sqs, 'rolling', 'during-backup');
    const backup = await runCli(
      ['backup', '--admin', (slots.get(follower?.id ?? '') as Slot).admin, '--out', file],
      env,
    );
    await traffic.stop();
    expect(backup.code, backup.stderr).toBe(0);
    const summary = JSON.parse(backup.stdout) as { appliedIndex: number; rows: number };
    expect(summary.appliedIndex).toBeGreaterThan(0);

    const restored = await allocate('r1');
    const restore = await runCli(
      ['restore', file, '--data-dir', restored.dataDir, '--id', 'r1', '--raft-listen', restored.raft],
      env,
    );
    expect(restore.code, restore.stderr).toBe(0);
    const node = new NodeProcess(
      'r1',
      [
        mainScript,
        'serve',
        '--id',
        'r1',
        '--data-dir',
        restored.dataDir,
        '--sqs-listen',
        restored.sqs,
        '--admin-listen',
        restored.admin,
        '--raft-listen',
        restored.raft,
      ],
      env,
      join(dir.path, 'r1.log'),
      restored.admin,
    );
    slots.delete('r1');
    const alone = new FailoverSqs(() => [`http://${restored.sqs}`]);
    try {
      await node.waitReady();
      const status = await node.status(secretHeaders);
      expect(status.members).toEqual([{ id: 'r1', address: restored.raft, role: 'voter' }]);
      expect(status.appliedIndex).toBeGreaterThanOrEqual(summary.appliedIndex);
      const clusterQueues = await sqs.withFailover((client) => client.send(new ListQueuesCommand({})));
      const restoredQueues = await alone.withFailover((client) => client.send(new ListQueuesCommand({})));
      const names = (urls: string[] | undefined): string[] =>
        (urls ?? []).map((url) => url.split('/').pop() ?? '').sort();
      expect(names(restoredQueues.QueueUrls)).toEqual(names(clusterQueues.QueueUrls));
      const seen = await alone.drain('kept', bodies);
      expect([...seen].sort()).toEqual([...bodies].sort());
    } finally {
      alone.close();
      await node.stop();
    }
  });
});
