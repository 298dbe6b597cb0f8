/**
 * Keeps one received message invisible while its handler runs: ChangeMessageVisibility to the
 * full visibility timeout, consumerLeaseExtensionsPerTimeout times per timeout, so a slow or
 * failed renewal or two still leaves the message hidden. It starts when the message is received
 * (a FIFO message may wait for its group's earlier ones before its handler runs) and stops when
 * the handler returns or the message is given back unprocessed.
 *
 * When a renewal is refused (the handle no longer holds the message) or none has succeeded for a
 * whole timeout, the lease is lost: the message may be with another consumer now, and the lease's
 * signal aborts so that the handler can stop.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { raftqLimits } from '../base/limits.js';
import { isLeaseLostFailure } from './sqs-failure.js';

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly messageId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The lease on message ${messageId} was lost: ${reason}`, options);
  }
}

export interface LeaseKeeperOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly visibilityTimeoutSeconds: number;
  readonly onError: (error: unknown) => void;
}

export class LeaseKeeper {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewal: Promise<void> | undefined;
  private heldUntilMs: number;
  private isStopped = false;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.heldUntilMs = Date.now() + options.visibilityTimeoutSeconds * 1000;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isLost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Starts renewing; does nothing when already renewing, stopped or lost. */
  start(): void {
    if (this.timer !== undefined || this.isStopped || this.isLost) return;
    const periodMs =
      (this.options.visibilityTimeoutSeconds * 1000) / raftqLimits.consumerLeaseExtensionsPerTimeout.value;
    this.timer = setInterval(() => this.maybeRenew(), periodMs);
  }

  /** Stops renewing and waits for a renewal in flight, so none lands after the caller's own change. */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewal;
  }

  /** Gives the lease up without a word to the queue: the message reappears when its timeout ends. */
  abandon(reason: string): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.lose(new LeaseLostError(this.options.messageId, reason));
  }

  private maybeRenew(): void {
    if (this.renewal !== undefined || this.isLost) return;
    const startedAtMs = Date.now();
    if (startedAtMs >= this.heldUntilMs) {
      this.lose(new LeaseLostError(this.options.messageId, 'no extension succeeded within the visibility timeout'));
      return;
    }
    this.renewal = this.renew(startedAtMs).finally(() => (this.renewal = undefined));
  }

  private async renew(startedAtMs: number): Promise<void> {
    const { client, queueUrl, receiptHandle, visibilityTimeoutSeconds } = this.options;
    try {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: visibilityTimeoutSeconds,
        }),
      );
      // Counted from when the request left, not when it answered: the queue may have applied it early.
      this.heldUntilMs = startedAtMs + visibilityTimeoutSeconds * 1000;
    } catch (error) {
      if (this.timer === undefined) return;
      if (isLeaseLostFailure(error)) {
        this.lose(new LeaseLostError(this.options.messageId, 'the queue refused to extend it', { cause: error }));
      } else {
        this.options.onError(error);
      }
    }
  }

  private lose(error: LeaseLostError): void {
    if (this.isLost) return;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.options.onError(error);
    this.controller.abort(error);
  }
}
