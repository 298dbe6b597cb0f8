/**
 * The FIFO group lock across nodes (docs/architecture/queue.md): while a message of a group is in flight, no
 * later message of that group is delivered by any node — not by a node whose replica lags, not
 * while the receive that holds the head lost its answer, not by concurrent receives on one node
 * (which reserve what they look at). Several QueueService instances share one log
 * (ModelTxnExecutor); each reads through its own LaggingReplica, which also checks every
 * committed claim against the state it committed on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RetryableError } from '../../src/base/errors.js';
import { SeededPrng } from '../../src/base/prng.js';
import { GenerationKeys } from '../../src/queue/layout/key-layout.js';
import { encodeReceiveState } from '../../src/queue/layout/receive-state.js';
import type { ReceivedMessage } from '../../src/queue/queue-api.js';
import { QueueService } from '../../src/queue/queue-service.js';
import { LaggingReplica } from './support/lagging-replica.js';
import { ManualScheduler } from './support/manual-scheduler.js';
import { ModelTxnExecutor } from './support/model-txn-executor.js';
import { entry } from './support/queue-harness.js';

const queue = 'orders.fifo';

async function makeCluster(nodeCount: number) {
  const log = new ModelTxnExecutor();
  const violations: string[] = [];
  const replicas = Array.from({ length: nodeCount }, () => new LaggingReplica(log, violations));
  const services = replicas.map(
    (replica, i) =>
      new QueueService({
        executor: replica,
        accountId: '000000000000',
        region: 'us-east-1',
        scheduler: new ManualScheduler(log.clock),
        prng: new SeededPrng(i + 1),
      }),
  );
  const first = services[0] as QueueService;
  await first.createQueue({ name: queue, attributes: { FifoQueue: 'true', VisibilityTimeout: '5' }, tags: {} });
  for (const replica of replicas) replica.catchUp();
  return { log, violations, replicas, services };
}

async function sendInGroup(service: QueueService, groupId: string, body: string): Promise<string> {
  const [result] = await service.sendMessages(
    queue,
    [entry('e', body, { messageGroupId: groupId, messageDeduplicationId: body })],
    { senderId: 's' },
  );
  if (result === undefined) throw new Error('a send of one entry answered no entry');
  // The entry's own error (a lost reply is a RetryableError), for the caller to judge.
  if ('error' in result) throw result.error;
  return result.messageId;
}

describe('the FIFO group lock across nodes', () => {
  it('a lagging node does not deliver a group past a head claimed by a receive whose answer was lost', async () => {
    const { log, violations, replicas, services } = await makeCluster(2);
    const [nodeA, nodeB] = services as [QueueService, QueueService];
    const replicaB = replicas[1] as LaggingReplica;
    const head = await sendInGroup(nodeA, 'g5', 'first');
    replicaB.catchUp();
    const beforeClaimTs = log.latestCommitTs;

    // Node A's receive claims the head, then every reply of its commit is lost: the caller gets
    // an error, the claim stands, and nobody holds the receipt handle.
    log.loseRepliesCount = 100;
    await expect(nodeA.receiveMessages(queue, { maxMessages: 10, waitTimeSeconds: 0 })).rejects.toThrow();
    log.loseRepliesCount = 0;

    // Node B has applied the send of the head but not its claim; a later message arrives.
    replicaB.appliedTs = beforeClaimTs;
    const later = await sendInGroup(nodeA, 'g5', 'second');
    replicaB.appliedTs = beforeClaimTs;
    expect(await nodeB.receiveMessages(queue, { maxMessages: 10, waitTimeSeconds: 0 })).toEqual([]);
    replicaB.catchUp();
    expect(await nodeB.receiveMessages(queue, { maxMessages: 10, waitTimeSeconds: 0 })).toEqual([]);

    // Once the lost claim's visibility timeout runs out, the head comes back first, then the rest.
    log.clock.advanceMs(5_001);
    const redelivered = await nodeB.receiveMessages(queue, { maxMessages: 10, waitTimeSeconds: 0 });
    expect(redelivered.map((m) => [m.messageId, m.attributes['ApproximateReceiveCount']])).toEqual([
      [head, '2'],
      [later, '1'],
    ]);
    expect(violations).toEqual([]);
  });

  it('the claim check reports a claim that skips an undeleted earlier message of its group', async () => {
    const { log, violations, replicas, services } = await makeCluster(1);
    const replica = replicas[0] as LaggingReplica;
    const service = services[0] as QueueService;
    await sendInGroup(service, 'g1', 'first');
    const laterId = await sendInGroup(service, 'g1', 'second');
    const keys = new GenerationKeys(queue, 1);
    const view = await replica.readView({ linearizable: true });
    const nowMs = log.nowMs();
    const claimed = { receiveCount: 1, claimedAtMs: nowMs, receiptToken: 'token', visibleAtMs: nowMs + 5_000 };
    await replica.commit({
      txnId: 'skips-the-head',
      startTsUs: view.ts,
      nowMs,
      readKeys: [keys.data(0, laterId), keys.receiveState(0, laterId)],
      writes: [{ kind: 'put', key: keys.receiveState(0, laterId), value: encodeReceiveState(claimed) }],
    });
    expect(violations).toHaveLength(1);
  });

  type Op =
    | { kind: 'send'; node: number; group: number }
    | { kind: 'receive'; nodes: number[]; maxMessages: number; visibilitySeconds: number }
    | { kind: 'delete'; node: number; pick: number }
    | { kind: 'advance'; ms: number }
    | { kind: 'catchUp'; node: number }
    | { kind: 'loseReplies'; count: number };

  const node = fc.integer({ min: 0, max: 1 });
  const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('send' as const), node, group: fc.integer({ min: 0, max: 1 }) }),
    fc.record({
      kind: fc.constant('receive' as const),
      nodes: fc.array(node, { minLength: 1, maxLength: 3 }),
      maxMessages: fc.integer({ min: 1, max: 3 }),
      visibilitySeconds: fc.integer({ min: 0, max: 5 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), node, pick: fc.nat() }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
    fc.record({ kind: fc.constant('catchUp' as const), node }),
    fc.record({ kind: fc.constant('loseReplies' as const), count: fc.integer({ min: 1, max: 3 }) }),
  );

  /**
   * A lost reply (or the retries it sets off running out) ends the operation with a retryable
   * error; what it did stays in the log. Anything else — an assertion inside the queue layer, a
   * TypeError — is a bug, and fails the property.
   */
  function swallowLostReply(error: unknown): never[] {
    if (error instanceof RetryableError) return [];
    throw error;
  }

  async function runHistory(ops: readonly Op[]): Promise<string[]> {
    const { log, violations, replicas, services } = await makeCluster(2);
    const handles: ReceivedMessage[] = [];
    let sent = 0;
    for (const op of ops) {
      try {
        if (op.kind === 'send') {
          sent++;
          await sendInGroup(services[op.node] as QueueService, `g${op.group}`, `b${sent}`);
        } else if (op.kind === 'receive') {
          // Receives started together interleave at every await, on one node or on both.
          const batches = await Promise.all(
            op.nodes.map((i) =>
              (services[i] as QueueService)
                .receiveMessages(queue, {
                  maxMessages: op.maxMessages,
                  visibilityTimeoutSeconds: op.visibilitySeconds,
                  waitTimeSeconds: 0,
                })
                .catch(swallowLostReply),
            ),
          );
          for (const batch of batches) handles.push(...batch);
        } else if (op.kind === 'delete') {
          const handle = handles[op.pick % Math.max(1, handles.length)];
          if (handle !== undefined)
            await (services[op.node] as QueueService).deleteMessages(queue, [
              { entryId: 'd', receiptHandle: handle.receiptHandle },
            ]);
        } else if (op.kind === 'advance') {
          log.clock.advanceMs(op.ms);
        } else if (op.kind === 'catchUp') {
          (replicas[op.node] as LaggingReplica).catchUp();
        } else {
          log.loseRepliesCount = op.count;
        }
      } catch (error) {
        swallowLostReply(error);
      }
    }
    return violations;
  }

  it('random histories over two lagging nodes, lost replies and concurrent receives keep every group in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 5, maxLength: 60 }), async (ops) => {
        expect(await runHistory(ops)).toEqual([]);
      }),
      { numRuns: 300, seed: 6 },
    );
  });
});
