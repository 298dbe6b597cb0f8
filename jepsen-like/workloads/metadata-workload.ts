import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { sqsLimits } from '../../src/base/limits.js';
import type { OperationPair } from '../history/operation-pairs.js';
import { checkLinearizability } from '../linearizability/linearizability-checker.js';
import { metadataOpName, metadataOperations } from '../linearizability/metadata-operations.js';
import {
  queueMetadataModel,
  type MetadataInput,
  type MetadataOutput,
} from '../linearizability/queue-metadata-model.js';
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
 * CreateQueue's VisibilityTimeout comes from this small set, so a create often meets the queue
 * already there with equal attributes: its answer (ok, nothing written) is decided on a read that
 * must be linearizable too.
 */
export const createValues: readonly number[] = [30, 60, 90];

/**
 * Clients create, delete, set and get the VisibilityTimeout of a few queues at random, ask for
 * their URLs and list them; each queue is a register whose history must be linearizable. Sets
 * mostly write values unique to them, so that a read names the write it saw; creates and a third
 * of the sets draw from `createValues`.
 */
/**
 * How long a client waits after an operation whose outcome is unknown before its next one. Each
 * such operation may take effect at any later time, and the linearizability search must try it
 * everywhere: a client that kept its pace through a majority outage (every answer a reset
 * connection) added about 80 of them in four seconds, and a 16-second run's register ran out of
 * the search's 5,000,000 steps. A real client backs off too.
 */
const unknownOutcomePauseMs = 1_000;

export class MetadataWorkload implements Workload {
  readonly name = 'metadata';
  private nextValue = 1;

  constructor(readonly options: MetadataWorkloadOptions) {}

  /** Operations completed ok so far: what the linearizability check has to go on. */
  private operationsOk = 0;

  opsToCheck(): number {
    return this.operationsOk;
  }

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
          const outcome = await this.operate(worker, this.drawInput(ctx));
          const waitMs = outcome === 'info' ? unknownOutcomePauseMs : intervalMs - (ctx.nowMs() - startedMs);
          await ctx.pause(Math.max(0, waitMs));
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
    // No queue name may be a prefix of another: ListQueues reads one register by its name.
    if (this.options.queues > 10) throw new RangeError('the metadata workload uses at most 10 queues');
    const queue = `${queuePrefix}${ctx.prng.intBelow(this.options.queues)}`;
    const fromSet = (): number => createValues[ctx.prng.intBelow(createValues.length)] as number;
    // Unique values within SQS's range for VisibilityTimeout.
    const unique = (): number => this.nextValue++ % (sqsLimits.visibilityTimeoutSecondsMax.value + 1);
    const roll = ctx.prng.intBelow(20);
    if (roll < 4) return { op: 'create', queue, value: fromSet() };
    if (roll < 6) return { op: 'delete', queue };
    if (roll < 11) return { op: 'set', queue, value: ctx.prng.intBelow(3) === 0 ? fromSet() : unique() };
    if (roll < 16) return { op: 'get', queue };
    if (roll < 18) return { op: 'get-url', queue };
    return { op: 'list', queue };
  }

  private async operate(worker: ClientWorker, input: MetadataInput): Promise<'ok' | 'fail' | 'info'> {
    const answer = (error: Parameters<typeof isQueueDoesNotExist>[0]): MetadataOutput | undefined => {
      if (isQueueDoesNotExist(error)) return { kind: 'does-not-exist' };
      if (input.op === 'create' && isQueueAlreadyExists(error)) return { kind: 'already-exists' };
      return undefined;
    };
    const { outcome } = await worker.perform(metadataOpName, input, (e) => this.call(e, input), answer);
    if (outcome === 'ok') this.operationsOk++;
    return outcome;
  }

  private async call(e: SqsEndpoint, input: MetadataInput): Promise<MetadataOutput> {
    const url = e.queueUrl(input.queue);
    switch (input.op) {
      case 'create':
        await e.client.send(
          new CreateQueueCommand({ QueueName: input.queue, Attributes: { VisibilityTimeout: String(input.value) } }),
          e.callOptions(),
        );
        return { kind: 'ok' };
      case 'delete':
        await e.client.send(new DeleteQueueCommand({ QueueUrl: url }), e.callOptions());
        return { kind: 'ok' };
      case 'set':
        await e.client.send(
          new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { VisibilityTimeout: String(input.value) } }),
          e.callOptions(),
        );
        return { kind: 'ok' };
      case 'get': {
        const out = await e.client.send(
          new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] }),
          e.callOptions(),
        );
        return { kind: 'value', value: Number(out.Attributes?.VisibilityTimeout) };
      }
      case 'get-url':
        await e.client.send(new GetQueueUrlCommand({ QueueName: input.queue }), e.callOptions());
        return { kind: 'ok' };
      case 'list': {
        const out = await e.client.send(new ListQueuesCommand({ QueueNamePrefix: input.queue }), e.callOptions());
        // The name is the URL's last path segment, whatever host the node put in front of it.
        return { kind: 'listed', names: (out.QueueUrls ?? []).map((u) => u.slice(u.lastIndexOf('/') + 1)).sort() };
      }
    }
  }
}
