import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sqsLimits } from '../../src/base/limits.js';
import type { OperationPair } from '../history/operation-pairs.js';
import { checkLinearizability } from '../linearizability/linearizability-checker.js';
import { metadataOpName, metadataOperations } from '../linearizability/metadata-operations.js';
import { queueMetadataModel, type MetadataInput, type MetadataOutput } from '../linearizability/queue-metadata-model.js';
import { countOperations } from '../report/history-stats.js';
import type { WorkloadReport } from '../report/run-results.js';
import { ClientWorker } from './client-worker.js';
import type { SqsEndpoint } from './sqs-endpoint.js';
import { isQueueAlreadyExists, isQueueDoesNotExist } from './sqs-outcome.js';
import type { CheckContext, Workload, WorkloadContext } from './workload.js';

export interface MetadataWorkloadOptions {
  readonly clients: number;
  /** Queues used as registers; few, so operations on each contend. */
  readonly queues: number;
  readonly opsPerSecond: number;
  /** The linearizability search's budget; past it the verdict is 'unknown'. */
  readonly searchStepsMax: number;
  readonly searchTimeMsMax: number;
}

const queuePrefix = 'jepsen-meta-';

/**
 * Clients create, delete, set and get the VisibilityTimeout of a few queues at random; each queue
 * is a register whose history must be linearizable. Values are unique per write so that a read
 * names the write it saw.
 */
export class MetadataWorkload implements Workload {
  readonly name = 'metadata';
  private nextValue = 1;

  constructor(readonly options: MetadataWorkloadOptions) {}

  async setup(): Promise<void> {
    // The registers start absent; the clients create them.
  }

  async run(ctx: WorkloadContext): Promise<void> {
    const intervalMs = (1000 * this.options.clients) / this.options.opsPerSecond;
    await Promise.all(
      Array.from({ length: this.options.clients }, async (_, i) => {
        const worker = new ClientWorker(ctx.recorder, ctx.endpoints, i);
        while (ctx.isRunning()) {
          const startedMs = ctx.nowMs();
          await this.operate(worker, this.drawInput(ctx));
          await ctx.pause(Math.max(0, intervalMs - (ctx.nowMs() - startedMs)));
        }
      }),
    );
  }

  async drain(): Promise<{ isEmpty: boolean; received: number }> {
    return { isEmpty: true, received: 0 };
  }

  check(pairs: readonly OperationPair[], ctx: CheckContext): WorkloadReport {
    const mine = pairs.filter((p) => p.f === metadataOpName);
    const result = checkLinearizability(queueMetadataModel, metadataOperations(mine), {
      stepsMax: this.options.searchStepsMax,
      timeMsMax: this.options.searchTimeMsMax,
      nowMs: ctx.nowMs,
    });
    return { valid: result.valid, checkers: { linearizability: result }, operations: countOperations(mine) };
  }

  private drawInput(ctx: WorkloadContext): MetadataInput {
    const queue = `${queuePrefix}${ctx.prng.intBelow(this.options.queues)}`;
    // Unique values within SQS's range for VisibilityTimeout.
    const value = this.nextValue++ % (sqsLimits.visibilityTimeoutSecondsMax.value + 1);
    const roll = ctx.prng.intBelow(10);
    if (roll < 2) return { op: 'create', queue, value };
    if (roll < 3) return { op: 'delete', queue };
    if (roll < 6) return { op: 'set', queue, value };
    return { op: 'get', queue };
  }

  private async operate(worker: ClientWorker, input: MetadataInput): Promise<void> {
    const answer = (error: Parameters<typeof isQueueDoesNotExist>[0]): MetadataOutput | undefined => {
      if (isQueueDoesNotExist(error)) return { kind: 'does-not-exist' };
      if (input.op === 'create' && isQueueAlreadyExists(error)) return { kind: 'already-exists' };
      return undefined;
    };
    await worker.perform(metadataOpName, input, (e) => this.call(e, input), answer);
  }

  private async call(e: SqsEndpoint, input: MetadataInput): Promise<MetadataOutput> {
    const url = e.queueUrl(input.queue);
    switch (input.op) {
      case 'create':
        await e.client.send(new CreateQueueCommand({ QueueName: input.queue, Attributes: { VisibilityTimeout: String(input.value) } }), e.callOptions());
        return { kind: 'ok' };
      case 'delete':
        await e.client.send(new DeleteQueueCommand({ QueueUrl: url }), e.callOptions());
        return { kind: 'ok' };
      case 'set':
        await e.client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { VisibilityTimeout: String(input.value) } }), e.callOptions());
        return { kind: 'ok' };
      case 'get': {
        const out = await e.client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] }), e.callOptions());
        return { kind: 'value', value: Number(out.Attributes?.VisibilityTimeout) };
      }
    }
  }
}
