/**
 * One delivery from receipt to verdict: the handler runs under a lease the library extends; then
 * success deletes the message, a failure makes it visible again after the retry delay, and a
 * failure marked doNotRetry — or the failure of the last delivery maxReceiveCount allows —
 * dead-letters it with its cause. A message is removed at acknowledgement, never at receipt.
 *
 * The lease is held from receipt, not from the handler's start: a FIFO message waiting for the
 * earlier messages of its group stays hidden from other consumers as long as it waits.
 */
import { ChangeMessageVisibilityCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { raftqLimits } from '../base/limits.js';
import { backoffMs, sleepMs } from './backoff.js';
import type { ConsumerErrorStage, ConsumerPolicy } from './consumer-options.js';
import { deadLetterCauseOf } from './dead-letter-cause-of.js';
import { moveToDeadLetterQueue } from './dead-letter-move.js';
import type { DeleteBatcher } from './delete-batcher.js';
import { receiveCountOf, toReceivedMessage, type Delivery } from './delivery.js';
import { isNotRetryable } from './do-not-retry.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { QueueSettings } from './queue-settings.js';
import { retryDelaySecondsFor } from './retry-delay.js';
import { isTransientSqsFailure } from './sqs-failure.js';

export interface DeliveryRunContext {
  readonly client: SQSClient;
  readonly policy: ConsumerPolicy;
  readonly settings: QueueSettings;
  readonly visibilityTimeoutSeconds: number;
  /** The consumer's acknowledgements, batched. */
  readonly deleter: DeleteBatcher;
}

export class DeliveryRun {
  private readonly lease: LeaseKeeper;
  private isAbandoned = false;
  private readonly delivery: Delivery;

  constructor(
    private readonly ctx: DeliveryRunContext,
    message: Message,
    private readonly receiptHandle: string,
  ) {
    const received = toReceivedMessage(message);
    this.lease = new LeaseKeeper({
      client: ctx.client,
      queueUrl: ctx.settings.queueUrl,
      messageId: received.messageId,
      receiptHandle,
      visibilityTimeoutSeconds: ctx.visibilityTimeoutSeconds,
      onError: (error) => this.report(error, 'lease'),
    });
    this.delivery = {
      message: received,
      receiveCount: receiveCountOf(message),
      lease: { receiptHandle, signal: this.lease.signal },
    };
  }

  /** Starts keeping the message hidden; called when it is received, before its turn comes. */
  hold(): void {
    this.lease.start();
  }

  /**
   * Runs the handler and settles the message. Resolves true when the handler completed and the
   * message was deleted; false when the handler failed or was abandoned, when the delete kept
   * failing (the message comes back after its timeout, a repeat), or when the lease was lost
   * while the message waited and the handler never ran.
   */
  async run(): Promise<boolean> {
    if (this.lease.isLost) return false;
    this.lease.start();
    let failure: { error: unknown } | undefined;
    try {
      await this.ctx.policy.handler(this.delivery);
    } catch (error) {
      failure = { error };
    }
    await this.lease.stop();
    // Given up at the end of the grace period: the consumer has returned, so say nothing more.
    if (this.isAbandoned) return false;
    if (failure === undefined)
      return this.withAttempts('acknowledge', () => this.ctx.deleter.delete(this.receiptHandle));
    await this.settleFailure(failure.error);
    return false;
  }

  /** Will not run: stops the lease (waiting for a renewal in flight) so that the caller can release the message. */
  async letGo(): Promise<string> {
    await this.lease.stop();
    return this.receiptHandle;
  }

  private async settleFailure(error: unknown): Promise<void> {
    this.report(error, 'handler');
    const maxReceiveCount = this.ctx.settings.redrivePolicy?.maxReceiveCount ?? Number.POSITIVE_INFINITY;
    if (isNotRetryable(error) || this.delivery.receiveCount >= maxReceiveCount) {
      const isMoved = await this.deadLetter(error);
      if (isMoved) return;
    }
    const delaySeconds = retryDelaySecondsFor(this.ctx.policy, this.delivery.receiveCount);
    const command = new ChangeMessageVisibilityCommand({
      QueueUrl: this.ctx.settings.queueUrl,
      ReceiptHandle: this.receiptHandle,
      VisibilityTimeout: delaySeconds,
    });
    await this.withAttempts('retry', () => this.ctx.client.send(command));
  }

  /** The grace period ended with the handler still running: stop extending, tell the handler. */
  abandon(): void {
    this.isAbandoned = true;
    this.lease.abandon('the consumer stopped and its grace period ended before the handler returned');
  }

  /**
   * Dead-letters with the handler's cause. On a failure the message is left to the retry path, and
   * the queue's own redrive still moves it after maxReceiveCount deliveries (without a cause).
   */
  private async deadLetter(error: unknown): Promise<boolean> {
    const request = {
      source: this.ctx.settings,
      message: this.delivery.message,
      receiptHandle: this.receiptHandle,
      receiveCount: this.delivery.receiveCount,
      cause: deadLetterCauseOf(error),
    };
    return this.withAttempts('dead-letter', () => moveToDeadLetterQueue(this.ctx.client, request));
  }

  /** Repeats a transiently failed step a bounded number of times; true when it succeeded. */
  private async withAttempts(stage: ConsumerErrorStage, step: () => Promise<unknown>): Promise<boolean> {
    const attemptsMax = raftqLimits.clientAcknowledgeAttemptsMax.value;
    for (let attempt = 1; ; attempt++) {
      try {
        await step();
        return true;
      } catch (error) {
        this.report(error, stage);
        if (!isTransientSqsFailure(error) || attempt >= attemptsMax || this.isAbandoned) return false;
        await sleepMs(backoffMs(attempt));
      }
    }
  }

  private report(error: unknown, stage: ConsumerErrorStage): void {
    try {
      this.ctx.policy.onError(error, {
        stage,
        messageId: this.delivery.message.messageId,
        receiveCount: this.delivery.receiveCount,
      });
    } catch {
      // A failing error hook must not turn one message's trouble into the consumer's.
    }
  }
}
