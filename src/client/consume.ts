/**
 * consume(): runs a handler on the messages of one queue, up to `parallelism` at once, until the
 * signal aborts. Delivery is at least once; see delivery-run.ts for what happens to each message.
 *
 * On a FIFO queue, a group's messages run one after another in SequenceNumber order, and groups run
 * side by side (group-sequencer.ts); `parallelism` bounds the groups in hand, and on a standard
 * queue the messages, each on its own.
 *
 * An idle consumer long-polls (WaitTimeSeconds 20) instead of sleeping in a loop. On abort it
 * stops receiving at once (the long poll in progress is cancelled), lets running handlers finish
 * within the grace period, and resolves. It rejects only when the queue itself fails: it does not
 * exist or cannot be read, has no RedrivePolicy, or keeps failing past consumerQueueFailuresMax
 * receives in a row. A handler's failure never ends it.
 */
import { ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { backoffMs, sleepMs } from './backoff.js';
import { resolveConsumerOptions, type ConsumeOptions, type ConsumerPolicy } from './consumer-options.js';
import { DeleteBatcher } from './delete-batcher.js';
import { DeliveryRun } from './delivery-run.js';
import { ClientOptionsError, DeadLetterQueueMissingError, QueueFailedError } from './errors.js';
import { GroupSequencer, type SequencedMessage } from './group-sequencer.js';
import { readQueueSettings, type QueueSettings } from './queue-settings.js';
import { isAbortFailure, isTransientSqsFailure } from './sqs-failure.js';
import { releaseToQueue } from './visibility-release.js';

/**
 * Consumes until `options.signal` aborts. Options are checked before anything else happens, and a
 * refused one throws ClientOptionsError synchronously.
 */
export function consume(options: ConsumeOptions): Promise<void> {
  const policy = resolveConsumerOptions(options);
  return new QueueConsumer(policy).run();
}

/** A received message the consumer holds, running or waiting its turn in its group. */
interface HeldMessage extends SequencedMessage {
  readonly delivery: DeliveryRun;
}

class QueueConsumer {
  private readonly client: SQSClient;
  private readonly ownsClient: boolean;
  /** Deliveries whose handler is running, which the end of the grace period abandons. */
  private readonly running = new Set<DeliveryRun>();
  private readonly sequencer: GroupSequencer<HeldMessage>;
  private slotFreed: (() => void) | undefined;
  private readonly deleter: DeleteBatcher;

  constructor(private readonly policy: ConsumerPolicy) {
    this.ownsClient = policy.client === undefined;
    this.client = policy.client ?? new SQSClient({});
    this.deleter = new DeleteBatcher(this.client, policy.queueUrl);
    this.sequencer = new GroupSequencer<HeldMessage>({
      run: (held) => this.runDelivery(held.delivery),
      release: (held) => this.release(held.map((h) => h.delivery)),
      laneEnded: () => this.slotFreed?.(),
    });
  }

  async run(): Promise<void> {
    // Messages waiting their turn go back the moment the consumer is told to stop.
    const stopSequencer = () => this.sequencer.stop();
    this.policy.signal.addEventListener('abort', stopSequencer, { once: true });
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
      this.policy.signal.removeEventListener('abort', stopSequencer);
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
        messages = await this.receive(
          Math.min(parallelism - this.sequencer.laneCount, sqsLimits.receiveMessagesMax.value),
          visibilityTimeoutSeconds,
        );
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
      // Received as the consumer stopped, they go back at once (a stopped sequencer releases what
      // it is given) rather than stay hidden until their timeout ends.
      this.sequencer.add(this.hold(settings, visibilityTimeoutSeconds, messages));
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

  /** Starts keeping every received message hidden, whether it runs now or waits its turn in its group. */
  private hold(settings: QueueSettings, visibilityTimeoutSeconds: number, messages: readonly Message[]): HeldMessage[] {
    const context = {
      client: this.client,
      policy: this.policy,
      settings,
      visibilityTimeoutSeconds,
      deleter: this.deleter,
    };
    const held: HeldMessage[] = [];
    for (const message of messages) {
      if (message.ReceiptHandle === undefined) continue;
      const delivery = new DeliveryRun(context, message, message.ReceiptHandle);
      delivery.hold();
      // Standard queues may carry group ids too (fair queues); only a FIFO queue orders by them.
      const groupId = settings.isFifo ? message.Attributes?.['MessageGroupId'] : undefined;
      held.push({ delivery, groupId, sequenceNumber: sequenceNumberOf(message) });
    }
    return held;
  }

  private async runDelivery(delivery: DeliveryRun): Promise<boolean> {
    this.running.add(delivery);
    try {
      return await delivery.run();
    } finally {
      this.running.delete(delivery);
    }
  }

  /** Resolves when fewer than `parallelism` lanes (groups, or standard messages) are in hand, or when the consumer is stopped. */
  private freeSlot(): Promise<void> {
    if (this.sequencer.laneCount < this.policy.parallelism) return Promise.resolve();
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

  /** Messages that will not run now go back at once rather than after their timeout. */
  private async release(deliveries: readonly DeliveryRun[]): Promise<void> {
    const receiptHandles = await Promise.all(deliveries.map((delivery) => delivery.letGo()));
    await releaseToQueue(this.client, this.policy.queueUrl, receiptHandles, (error) => this.report(error, 'release'));
  }

  /**
   * Releases the messages not started, waits for running handlers up to the grace period, then
   * abandons those still running.
   */
  private async drain(): Promise<void> {
    this.sequencer.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = new Promise<'grace over'>(
      (resolve) => (timer = setTimeout(() => resolve('grace over'), this.policy.gracePeriodMs)),
    );
    const outcome = await Promise.race([this.sequencer.settled(), graceOver]);
    clearTimeout(timer);
    if (outcome !== 'grace over') return;
    for (const delivery of this.running) delivery.abandon();
  }

  private report(error: unknown, stage: 'receive' | 'release'): void {
    try {
      this.policy.onError(error, { stage });
    } catch {
      // See DeliveryRun.report.
    }
  }
}

/** The FIFO SequenceNumber (a decimal string of up to 128 bits); undefined when absent or not a number. */
function sequenceNumberOf(message: Message): bigint | undefined {
  const text = message.Attributes?.['SequenceNumber'];
  if (text === undefined || !/^[0-9]+$/.test(text)) return undefined;
  return BigInt(text);
}
