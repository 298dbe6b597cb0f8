import { CreateQueueCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { checkFifo } from '../checkers/fifo-checker.js';
import type {
  BatchResult,
  ChangeVisibilityInvoke,
  DeleteInvoke,
  ReceiveInvoke,
  ReceiveResult,
  ReceivedMessage,
  SendInvoke,
  SendResult,
} from '../checkers/queue-ops.js';
import { checkRedelivery } from '../checkers/redelivery-checker.js';
import { checkTotalQueue } from '../checkers/total-queue-checker.js';
import { checkVisibility } from '../checkers/visibility-checker.js';
import type { OperationPair } from '../history/operation-pairs.js';
import { countOperations } from '../report/history-stats.js';
import { combineValidity, type WorkloadReport } from '../report/run-results.js';
import { ClientWorker } from './client-worker.js';
import { changeVisibility, deleteBatch, deleteOne, sendBatch, sendOne } from './queue-calls.js';
import type { SqsEndpoint } from './sqs-endpoint.js';
import type { CheckContext, Workload, WorkloadContext } from './workload.js';

export interface QueueWorkloadOptions {
  /** 'queue' (standard) or 'fifo'. */
  readonly name: string;
  readonly queueName: string;
  readonly isFifo: boolean;
  readonly producers: number;
  readonly consumers: number;
  /** FIFO: message groups the producers spread over. */
  readonly groups: number;
  /** Sends per second over all producers; the producers pace themselves to it. */
  readonly sendsPerSecond: number;
  readonly visibilityTimeoutSeconds: number;
  /** FIFO: the share of sends that deliberately repeat an earlier body with its deduplication id. */
  readonly resendFraction: number;
  /** The share of sends made as a SendMessageBatch of 2-5 new bodies. */
  readonly batchSendFraction: number;
  /** The share of deliveries a consumer abandons (no delete; half released at once with ChangeMessageVisibility 0). */
  readonly abandonFraction: number;
}

/**
 * Producers send unique bodies, one at a time or in batches; consumers receive (long poll of 1 s)
 * and delete what they get, one at a time or in batches, abandoning a few deliveries so they come
 * back after their visibility runs out (or at once, released with ChangeMessageVisibility). On a
 * FIFO queue each send names a group and its body as deduplication id, and some sends repeat an
 * earlier acknowledged one, which must be deduplicated. The drain abandons nothing.
 */
export class QueueWorkload implements Workload {
  constructor(readonly options: QueueWorkloadOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** Distinct sends acknowledged, and messages delivered, so far. */
  private sendsAcknowledged = 0;
  private messagesDelivered = 0;

  opsToCheck(): number {
    return Math.min(this.sendsAcknowledged, this.messagesDelivered);
  }

  async setup(endpoints: readonly SqsEndpoint[]): Promise<void> {
    const attributes: Record<string, string> = { VisibilityTimeout: String(this.options.visibilityTimeoutSeconds) };
    if (this.options.isFifo) attributes['FifoQueue'] = 'true';
    await retryUntilOk(endpoints, (e) =>
      e.client.send(
        new CreateQueueCommand({ QueueName: this.options.queueName, Attributes: attributes }),
        e.callOptions(),
      ),
    );
  }

  async run(ctx: WorkloadContext): Promise<void> {
    const workers: Promise<void>[] = [];
    let endpointCursor = 0;
    for (let i = 0; i < this.options.producers; i++)
      workers.push(this.produce(ctx, new ClientWorker(ctx.recorder, ctx.endpoints, endpointCursor++), i));
    for (let i = 0; i < this.options.consumers; i++)
      workers.push(this.consume(ctx, new ClientWorker(ctx.recorder, ctx.endpoints, endpointCursor++), ctx.isRunning));
    await Promise.all(workers);
  }

  async drain(ctx: WorkloadContext, deadlineMs: number): Promise<{ isEmpty: boolean; received: number }> {
    // Quiet long enough that messages claimed by receives whose answers were lost become visible again.
    const quietMs = this.options.visibilityTimeoutSeconds * 1000 + 3_000;
    let lastNonEmptyMs = ctx.nowMs();
    let received = 0;
    const isDraining = (): boolean => ctx.nowMs() - lastNonEmptyMs < quietMs && ctx.nowMs() < deadlineMs;
    await Promise.all(
      ctx.endpoints.map(async (_, i) => {
        const worker = new ClientWorker(ctx.recorder, ctx.endpoints, i);
        while (isDraining()) {
          const count = await this.receiveAndSettle(ctx, worker, 0);
          if (count > 0) {
            lastNonEmptyMs = ctx.nowMs();
            received += count;
          }
        }
      }),
    );
    return { isEmpty: ctx.nowMs() - lastNonEmptyMs >= quietMs, received };
  }

  check(pairs: readonly OperationPair[], ctx: CheckContext): WorkloadReport {
    const mine = pairs.filter((p) => (p.invoke.value as { queue?: string } | null)?.queue === this.options.queueName);
    const options = { queue: this.options.queueName, clockAllowanceMs: ctx.clockAllowanceMs };
    const checkers: WorkloadReport['checkers'] = {
      'total-queue': checkTotalQueue(mine, this.options.queueName),
      visibility: checkVisibility(mine, options),
      redelivery: checkRedelivery(mine, this.options.queueName),
    };
    if (this.options.isFifo) checkers['fifo'] = checkFifo(mine, options);
    return {
      valid: combineValidity(Object.values(checkers).map((c) => c.valid)),
      checkers,
      operations: countOperations(mine),
    };
  }

  private async produce(ctx: WorkloadContext, worker: ClientWorker, producerIndex: number): Promise<void> {
    const intervalMs = (1000 * this.options.producers) / this.options.sendsPerSecond;
    const acknowledged: SendInvoke[] = [];
    let counter = 0;
    // Spread the producers' first sends over one interval so they do not move in lockstep.
    await ctx.pause((intervalMs * producerIndex) / this.options.producers);
    while (ctx.isRunning()) {
      const startedMs = ctx.nowMs();
      const resend =
        this.options.isFifo && acknowledged.length > 0 && ctx.prng.nextFloat() < this.options.resendFraction;
      let sent = 1;
      if (resend) {
        const args = acknowledged[ctx.prng.intBelow(acknowledged.length)] as SendInvoke;
        await worker.perform('send', args, (e) => sendOne(e, args));
      } else if (ctx.prng.nextFloat() < this.options.batchSendFraction) {
        sent = 2 + ctx.prng.intBelow(4);
        const entries = Array.from({ length: sent }, () => this.newSend(ctx, producerIndex, counter++));
        const { outcome, result } = await worker.perform(
          'send-batch',
          { queue: this.options.queueName, entries },
          (e) => sendBatch(e, this.options.queueName, entries),
        );
        if (outcome === 'ok')
          (result as BatchResult<SendResult>).entries.forEach((r, i) => {
            if (!('ok' in r)) return;
            this.sendsAcknowledged++;
            remember(acknowledged, entries[i] as SendInvoke);
          });
      } else {
        const args = this.newSend(ctx, producerIndex, counter++);
        const { outcome } = await worker.perform('send', args, (e) => sendOne(e, args));
        if (outcome === 'ok') {
          this.sendsAcknowledged++;
          remember(acknowledged, args);
        }
      }
      await ctx.pause(Math.max(0, intervalMs * sent - (ctx.nowMs() - startedMs)));
    }
  }

  private newSend(ctx: WorkloadContext, producerIndex: number, counter: number): SendInvoke {
    const body = `${this.options.name}-p${producerIndex}-${counter}`;
    if (!this.options.isFifo) return { queue: this.options.queueName, body };
    return {
      queue: this.options.queueName,
      body,
      groupId: `g${ctx.prng.intBelow(this.options.groups)}`,
      dedupId: body,
    };
  }

  private async consume(ctx: WorkloadContext, worker: ClientWorker, isRunning: () => boolean): Promise<void> {
    while (isRunning()) {
      const count = await this.receiveAndSettle(ctx, worker, this.options.abandonFraction);
      // An error answered at once (a node down) must not turn this loop into a busy spin.
      if (count < 0) await ctx.pause(100);
    }
  }

  /**
   * One receive, then each message settled: most deleted (one by one, or in a batch), a share
   * (`abandonFraction`) abandoned — released at once with ChangeMessageVisibility 0 or left to
   * time out — so redelivery after expiry is exercised. Returns the count, or -1 after an error.
   */
  private async receiveAndSettle(ctx: WorkloadContext, worker: ClientWorker, abandonFraction: number): Promise<number> {
    const queue = this.options.queueName;
    const args: ReceiveInvoke = {
      queue,
      visibilityTimeoutSeconds: this.options.visibilityTimeoutSeconds,
      maxMessages: 10,
    };
    const { outcome, result } = await worker.perform('receive', args, async (e) => {
      const out = await e.client.send(
        new ReceiveMessageCommand({
          QueueUrl: e.queueUrl(queue),
          MaxNumberOfMessages: args.maxMessages,
          VisibilityTimeout: args.visibilityTimeoutSeconds,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          // The older name of the same request, for servers that only know it.
          AttributeNames: ['All'],
        }),
        e.callOptions(),
      );
      const value: ReceiveResult = { messages: (out.Messages ?? []).map(toReceived) };
      return value;
    });
    if (outcome !== 'ok') return -1;
    const messages = (result as ReceiveResult).messages;
    this.messagesDelivered += messages.length;
    const toDelete: DeleteInvoke[] = [];
    for (const message of messages) {
      const handle = { queue, body: message.body, messageId: message.messageId, receiptHandle: message.receiptHandle };
      if (ctx.prng.nextFloat() >= abandonFraction) {
        toDelete.push(handle);
      } else if (ctx.prng.intBelow(2) === 0) {
        const release: ChangeVisibilityInvoke = { ...handle, visibilityTimeoutSeconds: 0 };
        await worker.perform('change-visibility', release, (e) => changeVisibility(e, release));
      }
    }
    if (toDelete.length > 1 && ctx.prng.intBelow(2) === 0) {
      await worker.perform('delete-batch', { queue, entries: toDelete }, (e) => deleteBatch(e, queue, toDelete));
    } else {
      for (const del of toDelete) await worker.perform('delete', del, (e) => deleteOne(e, del));
    }
    return messages.length;
  }
}

function remember(acknowledged: SendInvoke[], args: SendInvoke): void {
  if (acknowledged.length < 1_000) acknowledged.push(args);
}

function toReceived(m: Message): ReceivedMessage {
  const attrs = m.Attributes ?? {};
  const receiveCount = attrs.ApproximateReceiveCount === undefined ? undefined : Number(attrs.ApproximateReceiveCount);
  return {
    body: m.Body ?? '',
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    ...(attrs.SequenceNumber === undefined ? {} : { sequenceNumber: attrs.SequenceNumber }),
    ...(attrs.MessageGroupId === undefined ? {} : { groupId: attrs.MessageGroupId }),
    ...(attrs.MessageDeduplicationId === undefined ? {} : { dedupId: attrs.MessageDeduplicationId }),
    ...(receiveCount === undefined ? {} : { receiveCount }),
  };
}

/** Setup calls are not part of the history: retry them over every endpoint until one answers ok. */
export async function retryUntilOk(
  endpoints: readonly SqsEndpoint[],
  call: (e: SqsEndpoint) => Promise<unknown>,
  attemptsMax = 60,
): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attemptsMax; attempt++) {
    const endpoint = endpoints[attempt % endpoints.length];
    if (endpoint === undefined) break;
    try {
      await call(endpoint);
      return;
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new SetupFailedError(attemptsMax, lastError);
}

export class SetupFailedError extends Error {
  override readonly name = 'SetupFailedError';
  constructor(
    readonly attempts: number,
    cause: unknown,
  ) {
    super(
      `Workload setup failed after ${attempts} attempts: ${String((cause as Error | undefined)?.message ?? cause)}`,
      { cause },
    );
  }
}
