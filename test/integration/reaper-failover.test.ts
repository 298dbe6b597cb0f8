/**
 * The reaper across a leader change, on three real `raftq serve` processes: a purged generation
 * that takes several reaper sweeps, the leader killed with SIGKILL after one of them (the reaper
 * held there through the test hook RAFTQ_TEST_REAPER_SWEEPS_FILE, not caught in passing),
 * and the new leader finishing the job — with every message still within retention delivered
 * afterwards, on the queue that was purged and on one that was not.
 */
import {
  CreateQueueCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raftqLimits } from '../../src/base/limits.js';
import { reaperTestHoldEnv } from '../../src/cli/reaper-test-hold.js';
import { hasBuiltCli } from '../sqs/support/sqs-endpoint.js';
import { makeTempDir } from '../support/temp-dir.js';
import { ProcessCluster, waitFor } from './cluster-harness.js';

// Two rows a sent message (data and vis; the age row is written only for late moves): a purged
// generation of four reaper sweeps' budgets or more, so that even three nodes' one sweep each
// (leadership moving under load) leaves rows.
const rowsPerSentMessage = 2;
const sweepRowsMax = raftqLimits.reaperTombstonedRowsPerSweepMax.value;
const purgedMessages = Math.ceil((4 * sweepRowsMax) / rowsPerSentMessage);
const keptMessages = 40;
const holdDir = makeTempDir('reaper-hold');
/** How many sweeps each node may complete: the test's hold on the reaper (absent: no hold). */
const sweepsFile = join(holdDir.path, 'reaper-sweeps');

let cluster: ProcessCluster;
const clients = new Map<string, SQSClient>();

function client(id: string): SQSClient {
  const existing = clients.get(id);
  if (existing !== undefined) return existing;
  const created = new SQSClient({
    endpoint: `http://127.0.0.1:${cluster.spec(id).sqsPort}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 8,
  });
  clients.set(id, created);
  return created;
}

/** A metric's value from a node's /metrics (undefined when absent or the node does not answer). */
async function metric(id: string, line: string): Promise<number | undefined> {
  const response = await fetch(`http://127.0.0.1:${cluster.spec(id).adminPort}/metrics`, {
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
  if (response === undefined || response.status !== 200) return undefined;
  const text = await response.text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

async function sendBodies(id: string, queueUrl: string, prefix: string, count: number): Promise<void> {
  const batches = Math.ceil(count / 10);
  // Eight lanes: fast enough to fill a big generation in a few seconds.
  const lanes = 8;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let b = lane; b < batches; b += lanes) {
        const entries = Array.from({ length: Math.min(10, count - b * 10) }, (_, i) => ({
          Id: `e${i}`,
          MessageBody: `${prefix}-${b * 10 + i}`,
        }));
        const result = await client(id).send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        expect(result.Failed ?? []).toEqual([]);
      }
    }),
  );
}

async function receiveAllBodies(id: string, queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const answer = await client(id).send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 300,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) return bodies;
    bodies.push(...messages.map((m) => m.Body ?? ''));
  }
}

/** The first running node (polled in turn) for which `holds` is true. */
async function firstNode(holds: (id: string) => Promise<boolean>, timeoutMs: number, what: string): Promise<string> {
  let found: string | undefined;
  const findOne = async (): Promise<boolean> => {
    for (const id of cluster.specs.keys()) {
      if (cluster.isRunning(id) && (await holds(id))) {
        found = id;
        return true;
      }
    }
    return false;
  };
  await waitFor(findOne, timeoutMs, what);
  return found as string;
}

describe.skipIf(!hasBuiltCli())('the reaper when the leader dies mid-sweep', () => {
  beforeAll(async () => {
    // Held from the start: nothing is reaped until the test lets exactly one sweep run.
    writeFileSync(sweepsFile, '0');
    cluster = await ProcessCluster.start(3, ['--reaper-interval-ms', '150'], { [reaperTestHoldEnv]: sweepsFile });
  }, 120_000);

  afterAll(async () => {
    for (const sqs of clients.values()) sqs.destroy();
    await cluster?.close();
    holdDir.cleanup();
  });

  it('is finished by the new leader, and no message within retention is deleted', { timeout: 180_000 }, async () => {
    const leader = await cluster.leader();
    const churnUrl = (await client(leader).send(new CreateQueueCommand({ QueueName: 'churn' }))).QueueUrl as string;
    const keepUrl = (await client(leader).send(new CreateQueueCommand({ QueueName: 'keep' }))).QueueUrl as string;
    await sendBodies(leader, keepUrl, 'keep', keptMessages);
    await sendBodies(leader, churnUrl, 'old', purgedMessages);
    await client(leader).send(new PurgeQueueCommand({ QueueUrl: churnUrl }));
    await sendBodies(leader, churnUrl, 'new', keptMessages);
    await waitFor(
      async () => ((await metric(leader, 'raftq_reaper_tombstoned_rows')) ?? 0) >= rowsPerSentMessage * purgedMessages,
      30_000,
      'the census to count the purged generation',
    );
    const tombstonedAtPurge = (await metric(leader, 'raftq_reaper_tombstoned_rows')) as number;
    expect(await metric(leader, 'raftq_reaper_rows_total{family="tombstoned"}')).toBeUndefined();

    // One sweep a node, then held: the leader reaps one sweep's budget of the purged generation and stops
    // there. (Should leadership move meanwhile, whichever node reaped is the one part-way.)
    writeFileSync(sweepsFile, '1');
    const reaper = await firstNode(
      async (id) => ((await metric(id, 'raftq_reaper_rows_total{family="tombstoned"}')) ?? 0) > 0,
      60_000,
      'a leader to reap one sweep',
    );
    const remaining = async () => (await metric(reaper, 'raftq_reaper_tombstoned_rows')) ?? tombstonedAtPurge;
    await waitFor(async () => (await remaining()) < tombstonedAtPurge, 30_000, 'the census to count the reaped rows');
    const remainingAtKill = await remaining();
    expect(remainingAtKill).toBeGreaterThan(0);
    expect(tombstonedAtPurge - remainingAtKill).toBeLessThanOrEqual(3 * sweepRowsMax);
    await cluster.kill(reaper);
    // Released: the next leader reaps freely, from the start of the generation (its cursor is its own).
    rmSync(sweepsFile);

    // A new leader reaps the rest (its own counters) and then deletes the tombstone.
    const finisher = await firstNode(
      async (id) => (await metric(id, 'raftq_reaper_rows_total{family="tombstone"}')) === 1,
      60_000,
      'a new leader to clear the purged generation',
    );
    expect(finisher).not.toBe(reaper);
    expect(await metric(finisher, 'raftq_reaper_rows_total{family="tombstoned"}')).toBeGreaterThan(0);
    expect(await metric(finisher, 'raftq_reaper_tombstoned_rows')).toBe(0);
    const tombstones = await cluster.admin(
      finisher,
      'GET',
      `/debug/keys?linearizable=1&prefix=${encodeURIComponent(JSON.stringify(['tomb']))}`,
    );
    expect(tombstones.json.keys).toEqual([]);
    const oldRows = await cluster.admin(
      finisher,
      'GET',
      `/debug/keys?linearizable=1&prefix=${encodeURIComponent(JSON.stringify(['q', 'churn', 'g', 1]))}`,
    );
    expect(oldRows.json.keys).toEqual([]);

    const survivor = [...cluster.specs.keys()].find((id) => id !== reaper) as string;
    const expected = (prefix: string) => Array.from({ length: keptMessages }, (_, i) => `${prefix}-${i}`).sort();
    expect(
      (
        await receiveAllBodies(
          survivor,
          churnUrl.replace(String(cluster.spec(leader).sqsPort), String(cluster.spec(survivor).sqsPort)),
        )
      ).sort(),
    ).toEqual(expected('new'));
    expect(
      (
        await receiveAllBodies(
          survivor,
          keepUrl.replace(String(cluster.spec(leader).sqsPort), String(cluster.spec(survivor).sqsPort)),
        )
      ).sort(),
    ).toEqual(expected('keep'));

    // The killed node comes back and agrees with the others.
    cluster.spawnNode(reaper, { peers: [...cluster.specs.keys()] });
    await cluster.waitReady(reaper);
    const statuses = await cluster.converged(30_000);
    expect(new Set(statuses.map((s) => s.stateDigest)).size).toBe(1);
  });
});
