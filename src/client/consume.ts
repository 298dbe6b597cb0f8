/**
 * consume(): runs a handler on the messages of one queue, up to `parallelism` at once, until the
 * signal aborts. Delivery is at least once; see delivery-run.ts for what happens to each message.
 *
 * An idle consumer long-polls (WaitTimeSeconds 20) instead of sleeping in a loop. On abort it
 * stops receiving at once (the long poll in progress is cancelled), lets running handlers finish
 * within the grace period, and resolves. It rejects only when the queue itself fails: it does not
 * exist or cannot be read, has no RedrivePolicy, or keeps failing past consumerQueueFailuresMax
 * receives in a row. A handler's failure never ends it.
 */
import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { backoffMs, sleepMs } from './backoff.js';
import { resolveConsumerOptions, type ConsumeOptions, type ConsumerPolicy } from './consumer-options.js';
import { DeleteBatcher } from './delete-batcher.js';
import { DeliveryRun } from './delivery-run.js';
import { ClientOptionsError, DeadLetterQueueMissingError, QueueFailedError } from './errors.js';
import { readQueueSettings, type QueueSettings } from './queue-settings.js';
import { isAbortFailure, isTransientSqsFailure } from './sqs-failure.js';

/**
 * Consumes until `options.signal` aborts. Options are checked before anything else happens, and a
 * refused one throws ClientOptionsError synchronously.
 */
export function consume(options: ConsumeOptions): Promise<void> {
  const policy = resolveConsumerOptions(options);
  return new QueueConsumer(policy).run();
}

class QueueConsumer {
  private readonly client: SQSClient;
  private readonly ownsClient: boolean;
  private readonly running = new Map<DeliveryRun, Promise<void>>();
  private slotFreed: (() => void) | undefined;
  private readonly deleter: DeleteBatcher;

  constructor(private readonly policy: ConsumerPolicy) {
    this.ownsClient = policy.client === undefined;
    this.client = policy.client ?? new SQSClient({});
    this.deleter = new DeleteBatcher(this.client, policy.queueUrl);
  }

  async run(): Promise<void> {
    try {
      const settings = await this.start();
      if (settings === undefined) return;
      let failure: unknown;
      try {
        await this.receiveUntilStopped(settings.settings, settings.visibilityTimeoutSeconds);
      } catch (error) {
        failure = error;
      }
      await this.drain();
      if (failure !== undefined) throw failure;
    } finally {
      if (this.ownsClient) this.client.destroy();
    }
  }

  /** Reads the queue and refuses what cannot be consumed safely. undefined: stopped while starting. */
  private async start(): Promise<{ settings: QueueSettings; visibilityTimeoutSeconds: number } | undefined> {
    const { queueUrl, signal } = this.policy;
    if (signal.aborted) return undefined;
    let settings: QueueSettings;
    try {
      settings = await readQueueSettings(this.client, queueUrl, signal);
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    }
    if (settings.redrivePolicy === undefined) throw new DeadLetterQueueMissingError(queueUrl);
    const visibilityTimeoutSeconds = this.policy.visibilityTimeoutSeconds ?? settings.visibilityTimeoutSeconds;
    if (!(visibilityTimeoutSeconds >= 1)) {
      throw new ClientOptionsError(
        'visibilityTimeoutSeconds',
        this.policy.visibilityTimeoutSeconds,
        `it was left out and the queue's VisibilityTimeout is ${settings.visibilityTimeoutSeconds}; zero reads both as "redeliver at once" and as "never redeliver", so give one`,
      );
    }
    return { settings, visibilityTimeoutSeconds };
  }

  private async receiveUntilStopped(settings: QueueSettings, visibilityTimeoutSeconds: number): Promise<void> {
    const { signal, parallelism, queueUrl } = this.policy;
    let failuresInARow = 0;
    while (!signal.aborted) {
      await this.freeSlot();
      if (signal.aborted) return;
      let messages: Message[];
      try {
        messages = await this.receive(Math.min(parallelism - this.running.size, sqsLimits.receiveMessagesMax.value), visibilityTimeoutSeconds);
        failuresInARow = 0;
      } catch (error) {
        if (signal.aborted || isAbortFailure(error)) return;
        failuresInARow++;
        if (!isTransientSqsFailure(error) || failuresInARow >= raftqLimits.consumerQueueFailuresMax.value) {
          throw new QueueFailedError(queueUrl, 'ReceiveMessage', { cause: error });
        }
        this.report(error, 'receive');
        await sleepMs(backoffMs(failuresInARow), signal);
        continue;
      }
      if (signal.aborted) {
        await this.release(messages);
        return;
      }
      for (const message of messages) this.begin(settings, visibilityTimeoutSeconds, message);
    }
  }

  private receive(maxMessages: number, visibilityTimeoutSeconds: number): Promise<Message[]> {
    const command = new ReceiveMessageCommand({
      QueueUrl: this.policy.queueUrl,
      MaxNumberOfMessages: maxMessages,
      WaitTimeSeconds: sqsLimits.receiveWaitSecondsMax.value,
      VisibilityTimeout: visibilityTimeoutSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    });
    return this.client.send(command, { abortSignal: this.policy.signal }).then((output) => output.Messages ?? []);
  }

  private begin(settings: QueueSettings, visibilityTimeoutSeconds: number, message: Message): void {
    if (message.ReceiptHandle === undefined) return;
    const context = { client: this.client, policy: this.policy, settings, visibilityTimeoutSeconds, deleter: this.deleter };
    const run = new DeliveryRun(context, message, message.ReceiptHandle);
    const done = run.run().finally(() => {
      this.running.delete(run);
      this.slotFreed?.();
    });
    this.running.set(run, done);
  }

  /** Resolves when fewer than `parallelism` deliveries run, or when the consumer is stopped. */
  private freeSlot(): Promise<void> {
    if (this.running.size < this.policy.parallelism) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = () => done();
      const done = () => {
        this.slotFreed = undefined;
        this.policy.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.slotFreed = done;
      this.policy.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Messages received as the consumer stopped go back at once rather than after their timeout. */
  private async release(messages: Message[]): Promise<void> {
    const entries = messages.filter((m) => m.ReceiptHandle !== undefined).map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle as string, VisibilityTimeout: 0 }));
    if (entries.length === 0) return;
    try {
      await this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: this.policy.queueUrl, Entries: entries }));
    } catch (error) {
      this.report(error, 'release');
    }
  }

  /** Waits for running handlers up to the grace period, then abandons those still running. */
  private async drain(): Promise<void> {
    if (this.running.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.policy.gracePeriodMs)));
    await Promise.race([Promise.allSettled(this.running.values()), graceOver]);
    clearTimeout(timer);
    for (const run of this.running.keys()) run.abandon();
  }

  private report(error: unknown, stage: 'receive' | 'release'): void {
    try {
      this.policy.onError(error, { stage });
    } catch {
      // See DeliveryRun.report.
    }
  }
}
