// Starts test nodes as a user's test would (through the package's raftq/testing export), uses
// them, leaves a long poll waiting, stops them and returns without calling process.exit: the
// process must then exit by itself, which it cannot while anything the nodes opened is left.
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestNode } from 'raftq/testing';

const dataDir = mkdtempSync(join(tmpdir(), 'raftq-start-stop-'));
const nodes = [await startTestNode(), await startTestNode({ clock: 'real' }), await startTestNode({ dataDir })];
const parkedPolls = [];
for (const node of nodes) {
  await node.client.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  await node.client.send(
    new SendMessageCommand({ QueueUrl: node.queueUrl('jobs'), MessageBody: 'job', DelaySeconds: 5 }),
  );
  // Still waiting when the node stops: stop() must end it.
  parkedPolls.push(
    node.client
      .send(new ReceiveMessageCommand({ QueueUrl: node.queueUrl('jobs'), WaitTimeSeconds: 20 }))
      .catch(() => undefined),
  );
}
await nodes[0].advanceClock(1_000);
for (const node of nodes) await node.stop();
await Promise.all(parkedPolls);
rmSync(dataDir, { recursive: true, force: true });
console.log('stopped');
