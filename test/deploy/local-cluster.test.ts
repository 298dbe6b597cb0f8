/**
 * deploy/local: `raftq cluster up` starts the nodes in the background on the ports of docs/OPERATIONS.md
 * (moved with --base-port so tests do not collide), returns once all are ready and prints their
 * SQS endpoints; `raftq cluster down` stops them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive, readClusterRecord, type ClusterRecord } from '../../src/cli/cluster-command.js';
import { makeTempDir } from '../support/temp-dir.js';
import { freePortRange, runCli, sqsClient, waitFor } from './support/node-process.js';

describe('raftq cluster up and down', () => {
  const dir = makeTempDir('deploy-local');
  const started: number[] = [];

  afterAll(() => {
    for (const pid of started) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    dir.cleanup();
  });

  async function up(
    count: number,
    baseDir: string,
  ): Promise<{ record: ClusterRecord; stdout: string; basePort: number }> {
    const basePort = await freePortRange(10 * count);
    const answer = await runCli([
      'cluster',
      'up',
      '--nodes',
      String(count),
      '--base-dir',
      baseDir,
      '--base-port',
      String(basePort),
    ]);
    const record = existsSync(join(baseDir, 'cluster.json'))
      ? readClusterRecord(join(baseDir, 'cluster.json'))
      : { nodes: [] };
    started.push(...record.nodes.map((node) => node.pid));
    expect(answer.code, answer.stderr).toBe(0);
    return { record, stdout: answer.stdout, basePort };
  }

  it('starts three nodes in the background on base+10(i-1), +1, +2, each ready and taking SQS traffic, and stops them', async () => {
    const baseDir = join(dir.path, 'three');
    const { record, stdout, basePort } = await up(3, baseDir);
    expect(record.nodes.map((node) => node.id)).toEqual(['n1', 'n2', 'n3']);
    record.nodes.forEach((node, i) => {
      expect(node.sqs).toBe(`127.0.0.1:${basePort + 10 * i}`);
      expect(node.admin).toBe(`127.0.0.1:${basePort + 10 * i + 1}`);
      expect(node.raft).toBe(`127.0.0.1:${basePort + 10 * i + 2}`);
      expect(stdout).toContain(`sqs http://${node.sqs}`);
      expect(existsSync(node.logFile)).toBe(true);
      // `up` returned, and the node runs on in the background.
      expect(isProcessAlive(node.pid)).toBe(true);
    });
    // It returned only once every node was ready.
    for (const node of record.nodes) expect((await fetch(`http://${node.admin}/ready`)).status).toBe(200);

    // Traffic on all three: create through n1, send through n2, receive and delete through n3.
    const [first, second, third] = record.nodes.map((node) => sqsClient(`http://${node.sqs}`));
    try {
      await first?.send(new CreateQueueCommand({ QueueName: 'local' }));
      const urlOn = (node: { sqs: string }): string => `http://${node.sqs}/000000000000/local`;
      await second?.send(
        new SendMessageCommand({
          QueueUrl: urlOn(record.nodes[1] as { sqs: string }),
          MessageBody: 'across the cluster',
        }),
      );
      let body: string | undefined;
      await waitFor(
        async () => {
          const answer = await third?.send(
            new ReceiveMessageCommand({ QueueUrl: urlOn(record.nodes[2] as { sqs: string }), WaitTimeSeconds: 1 }),
          );
          const message = answer?.Messages?.[0];
          if (message === undefined) return false;
          body = message.Body;
          await third?.send(
            new DeleteMessageCommand({
              QueueUrl: urlOn(record.nodes[2] as { sqs: string }),
              ReceiptHandle: message.ReceiptHandle,
            }),
          );
          return true;
        },
        15_000,
        'the message on n3',
      );
      expect(body).toBe('across the cluster');
    } finally {
      for (const client of [first, second, third]) client?.destroy();
    }

    const down = await runCli(['cluster', 'down', '--base-dir', baseDir]);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toMatch(/n1 stopped\nn2 stopped\nn3 stopped/);
    for (const node of record.nodes) expect(isProcessAlive(node.pid)).toBe(false);
    // Each node went through the graceful shutdown, not a kill.
    for (const node of record.nodes) expect(readFileSync(node.logFile, 'utf8')).toContain('"shut down"');

    // The data stays: the next `up` from the same directory serves the same queue.
    const again = await runCli([
      'cluster',
      'up',
      '--nodes',
      '3',
      '--base-dir',
      baseDir,
      '--base-port',
      String(basePort),
    ]);
    const restarted = readClusterRecord(join(baseDir, 'cluster.json'));
    started.push(...restarted.nodes.map((node) => node.pid));
    expect(again.code, again.stderr).toBe(0);
    const client = sqsClient(`http://${restarted.nodes[0]?.sqs}`);
    try {
      const answer = await client.send(new GetQueueUrlCommand({ QueueName: 'local' }));
      expect(answer.QueueUrl).toBe(`http://${restarted.nodes[0]?.sqs}/000000000000/local`);
    } finally {
      client.destroy();
    }
    expect((await runCli(['cluster', 'down', '--base-dir', baseDir])).code).toBe(0);
  });

  it('starts five nodes with --nodes 5', async () => {
    const baseDir = join(dir.path, 'five');
    const { record } = await up(5, baseDir);
    expect(record.nodes).toHaveLength(5);
    const status = (await (await fetch(`http://${record.nodes[4]?.admin}/status`)).json()) as {
      members: { role: string }[];
    };
    expect(status.members.filter((m) => m.role === 'voter')).toHaveLength(5);
    const down = await runCli(['cluster', 'down', '--base-dir', baseDir]);
    expect(down.code, down.stderr).toBe(0);
    for (const node of record.nodes) expect(isProcessAlive(node.pid)).toBe(false);
  });

  it('refuses to start a second cluster from a base directory whose cluster still runs', async () => {
    const baseDir = join(dir.path, 'twice');
    const { record } = await up(1, baseDir);
    const again = await runCli([
      'cluster',
      'up',
      '--nodes',
      '1',
      '--base-dir',
      baseDir,
      '--base-port',
      String(await freePortRange(10)),
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/still running/);
    expect((await runCli(['cluster', 'down', '--base-dir', baseDir])).code).toBe(0);
    for (const node of record.nodes) expect(isProcessAlive(node.pid)).toBe(false);
  });
});
