import { afterEach, describe, expect, it, vi } from 'vitest';
import { raftLimits } from '../../src/base/limits.js';
import { SystemScheduler, type Scheduler } from '../../src/base/scheduler.js';
import {
  ForwardedOperationLostError,
  NoLeaderError,
  NodeStoppingError,
  ProposalOutcomeUnknownError,
  RemoteOperationError,
} from '../../src/cluster/errors.js';
import { NodeMetrics } from '../../src/cluster/node-metrics.js';
import type { OpAnswer, OpCallOptions } from '../../src/cluster/op-stream-client.js';
import { errorToReply } from '../../src/cluster/op-stream-server.js';
import { ForwardingQueueOperations, type ForwardingNode } from '../../src/forwarding/forwarding-queue-operations.js';
import { queueOpHandler } from '../../src/forwarding/queue-op-server.js';
import type { QueueService } from '../../src/queue/queue-service.js';
import { entry, makeHarness, receiveAll } from '../queue/support/queue-harness.js';

/**
 * The follower's side of operation forwarding over a scripted stream: each attempt either runs on
 * the "leader" (one QueueService standing for the cluster's state) and answers, runs and then
 * loses its answer (the leader died after committing), answers "not leader", or fails.
 */
type Step = 'run' | 'run-then-lose' | 'lose' | 'hang' | 'run-when-released' | { notLeader: string } | { error: Error };

const hostScheduler = new SystemScheduler();

class ScriptedNode {
  readonly id = 'n2';
  leader = 'n1';
  isStopping = false;
  readonly metrics = new NodeMetrics();
  /** The host's timers, with deadlines on Date.now so that the fake timers of a test move them too. */
  readonly scheduler: Scheduler = {
    every: (ms, fn) => hostScheduler.every(ms, fn),
    after: (ms, fn) => hostScheduler.after(ms, fn),
    immediate: (fn) => hostScheduler.immediate(fn),
    monotonicMs: () => Date.now(),
  };
  readonly attempts: Array<{ leader: string; kind: number }> = [];
  private readonly listeners = new Set<() => void>();
  private released: () => void = () => {};
  constructor(
    private readonly leaderService: QueueService,
    private readonly script: Step[],
  ) {}

  isLeader(): boolean {
    return this.leader === this.id;
  }

  leaderId(): string {
    return this.leader;
  }

  onLeadershipChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Another node leads now; listeners hear of it as from the node's leader watch. */
  electLeader(id: string): void {
    this.leader = id;
    for (const listener of this.listeners) listener();
  }

  release(): void {
    this.released();
  }

  async waitForLeader(): Promise<string> {
    if (this.leader === '') throw new NoLeaderError(this.id, 0);
    return this.leader;
  }

  async forwardOp(leader: string, kind: number, args: Uint8Array, options: OpCallOptions): Promise<OpAnswer> {
    this.attempts.push({ leader, kind });
    const step = this.script.shift() ?? 'run';
    const run = async (): Promise<OpAnswer> => {
      try {
        return {
          kind: 'result',
          result: await queueOpHandler(this.leaderService)(kind, args, {
            signal: options.signal ?? new AbortController().signal,
          }),
        };
      } catch (error) {
        const reply = errorToReply(error);
        throw new RemoteOperationError(reply.errorCode ?? '', reply.errorMessage ?? '', reply.isRetryable === true);
      }
    };
    if (step === 'run') return run();
    if (step === 'run-then-lose') {
      await run();
      throw new ForwardedOperationLostError(leader);
    }
    if (step === 'lose') throw new ForwardedOperationLostError(leader);
    if (step === 'hang') return new Promise<OpAnswer>(() => {});
    if (step === 'run-when-released') {
      await new Promise<void>((resolve) => (this.released = resolve));
      return run();
    }
    if ('notLeader' in step) return { kind: 'not-leader', leaderHint: step.notLeader };
    throw step.error;
  }
}

async function setUp(
  script: Step[],
): Promise<{ node: ScriptedNode; ops: ForwardingQueueOperations; service: QueueService }> {
  const { service } = makeHarness();
  await service.createQueue({ name: 'q', attributes: {}, tags: {} });
  const node = new ScriptedNode(service, script);
  let ids = 0;
  const ops = new ForwardingQueueOperations({
    local: service,
    node: node as unknown as ForwardingNode,
    newId: () => `id-${++ids}`,
  });
  return { node, ops, service };
}

describe('forwarding queue operations from a follower', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks again after a lost answer, and a send that had committed is enqueued once', async () => {
    const { node, ops, service } = await setUp(['run-then-lose', 'run']);
    const results = await ops.sendMessages('q', [entry('a', 'one'), entry('b', 'two')], { senderId: 's' });
    expect(node.attempts).toHaveLength(2);
    expect(results).toEqual([
      { entryId: 'a', messageId: 'id-1' },
      { entryId: 'b', messageId: 'id-2' },
    ]);
    expect(await service.getQueueAttributes('q', ['ApproximateNumberOfMessages'])).toEqual({
      ApproximateNumberOfMessages: '2',
    });
    expect((await receiveAll(service, 'q')).map((m) => m.body).sort()).toEqual(['one', 'two']);
  });

  it('goes where a "not leader" answer points, and nothing ran twice', async () => {
    const { node, ops, service } = await setUp([{ notLeader: 'n3' }, 'run']);
    await ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' });
    expect(node.attempts.map((a) => a.leader)).toEqual(['n1', 'n3']);
    expect(await receiveAll(service, 'q')).toHaveLength(1);
  });

  it("answers with the leader's error and does not ask again", async () => {
    const { node, ops } = await setUp([]);
    const failure = await ops
      .sendMessages('missing', [entry('a', 'one')], { senderId: 's' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RemoteOperationError);
    expect(failure).toMatchObject({ code: 'QueueDoesNotExist', isRetryable: false });
    expect(node.attempts).toHaveLength(1);
  });

  it('asks the next leader when the leader answers that it is stopping', async () => {
    const stopping = new NodeStoppingError('n1');
    const { node, ops, service } = await setUp([
      { error: new RemoteOperationError(stopping.code, stopping.message, true) },
      'run',
    ]);
    await ops.deleteMessages('q', [{ entryId: '0', receiptHandle: 'x' }]).catch(() => undefined);
    expect(node.attempts).toHaveLength(2);
    expect(await receiveAll(service, 'q')).toHaveLength(0);
  });

  it('runs here once this node leads', async () => {
    const { node, ops, service } = await setUp(['lose']);
    const sending = ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' });
    node.leader = node.id;
    const [result] = await sending;
    expect(result).toEqual({ entryId: 'a', messageId: 'id-1' });
    expect(node.attempts).toHaveLength(1);
    expect(await receiveAll(service, 'q')).toHaveLength(1);
  });

  it('asks the new leader at once when another node leads while a send waits for its answer', async () => {
    const { node, ops, service } = await setUp(['hang', 'run']);
    const sending = ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' });
    await vi.waitFor(() => expect(node.attempts).toHaveLength(1));
    node.electLeader('n3');
    expect(await sending).toEqual([{ entryId: 'a', messageId: 'id-1' }]);
    expect(node.attempts.map((a) => a.leader)).toEqual(['n1', 'n3']);
    expect(await receiveAll(service, 'q')).toHaveLength(1);
  });

  it("lets a receive wait for the old leader's answer when the leader changes", async () => {
    const { node, ops, service } = await setUp(['run-when-released']);
    await service.sendMessages('q', [entry('a', 'one')], { senderId: 's' });
    const receiving = ops.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 0 });
    await vi.waitFor(() => expect(node.attempts).toHaveLength(1));
    node.electLeader('n3');
    node.release();
    expect((await receiving).map((m) => m.body)).toEqual(['one']);
    expect(node.attempts).toHaveLength(1);
  });

  it('runs on the local service when it leads from the start', async () => {
    const { node, ops } = await setUp([]);
    node.leader = node.id;
    await ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' });
    expect(node.attempts).toHaveLength(0);
  });

  it('answers an empty receive when its caller went away and the answer was lost', async () => {
    const { node, ops } = await setUp(['lose']);
    const controller = new AbortController();
    controller.abort();
    expect(await ops.receiveMessages('q', { maxMessages: 1, waitTimeSeconds: 0, signal: controller.signal })).toEqual(
      [],
    );
    expect(node.attempts).toHaveLength(1);
  });

  it('gives up on a leader that never answers at the deadline, with a retryable error', async () => {
    const { node, ops } = await setUp(['hang']);
    vi.useFakeTimers();
    const sending = ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(raftLimits.proposalTimeoutMs.value + 1);
    const failure = await sending;
    expect(failure).toBeInstanceOf(ProposalOutcomeUnknownError);
    expect((failure as ProposalOutcomeUnknownError).isRetryable).toBe(true);
    expect(node.attempts).toHaveLength(1);
  });

  it('fails with a retryable error when no leader is known', async () => {
    const { node, ops } = await setUp([]);
    node.leader = '';
    await expect(ops.sendMessages('q', [entry('a', 'one')], { senderId: 's' })).rejects.toBeInstanceOf(NoLeaderError);
  });

  describe('a FIFO visibility change asked again after a lost answer', () => {
    async function inFlightFifoMessage(
      script: Step[],
    ): Promise<{ node: ScriptedNode; ops: ForwardingQueueOperations; service: QueueService; receiptHandle: string }> {
      const { node, ops, service } = await setUp(script);
      await service.createQueue({ name: 'f.fifo', attributes: { FifoQueue: 'true' }, tags: {} });
      await service.sendMessages('f.fifo', [entry('a', 'one', { messageGroupId: 'g', messageDeduplicationId: 'd1' })], {
        senderId: 's',
      });
      const [received] = await service.receiveMessages('f.fifo', {
        maxMessages: 1,
        visibilityTimeoutSeconds: 30,
        waitTimeSeconds: 0,
      });
      return { node, ops, service, receiptHandle: received?.receiptHandle ?? '' };
    }

    it('is not answered "not in flight" when the first attempt may have made the message visible', async () => {
      const { ops, service, receiptHandle } = await inFlightFifoMessage(['run-then-lose', 'run']);
      const answer = ops
        .changeMessageVisibility('f.fifo', [{ entryId: 'c', receiptHandle, visibilityTimeoutSeconds: 0 }])
        .catch((error: unknown) => error);
      // The first attempt did commit: the message is visible again. Telling the caller its change
      // was refused would be false, so the caller hears that the outcome is unknown (retryable).
      expect(await answer).toBeInstanceOf(ProposalOutcomeUnknownError);
      expect((await receiveAll(service, 'f.fifo')).map((m) => m.body)).toEqual(['one']);
    });

    it('is not answered "message does not exist" when, after the first attempt made it visible, another consumer took and deleted it', async () => {
      const { node, ops, service, receiptHandle } = await inFlightFifoMessage(['run-then-lose', 'run-when-released']);
      const answer = ops
        .changeMessageVisibility('f.fifo', [{ entryId: 'c', receiptHandle, visibilityTimeoutSeconds: 0 }])
        .catch((error: unknown) => error);
      // Between the lost answer and the repeat, the message the first attempt released goes to
      // another consumer, who deletes it: the repeat finds the handle unusable.
      await vi.waitFor(() => expect(node.attempts).toHaveLength(2));
      const [taken] = await service.receiveMessages('f.fifo', {
        maxMessages: 1,
        visibilityTimeoutSeconds: 30,
        waitTimeSeconds: 0,
      });
      expect(taken?.body).toBe('one');
      await service.deleteMessages('f.fifo', [{ entryId: 'd', receiptHandle: taken?.receiptHandle ?? '' }]);
      node.release();
      expect(await answer).toBeInstanceOf(ProposalOutcomeUnknownError);
    });

    it('answers the refusal when no earlier answer was lost', async () => {
      const { ops, receiptHandle } = await inFlightFifoMessage(['run', 'run']);
      expect(
        await ops.changeMessageVisibility('f.fifo', [{ entryId: 'c', receiptHandle, visibilityTimeoutSeconds: 0 }]),
      ).toEqual([{ entryId: 'c' }]);
      const again = await ops.changeMessageVisibility('f.fifo', [
        { entryId: 'c', receiptHandle, visibilityTimeoutSeconds: 0 },
      ]);
      expect(again).toMatchObject([{ entryId: 'c', error: { code: 'MessageNotInflight' } }]);
    });
  });
});
