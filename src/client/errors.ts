/**
 * The client library's operating errors, one class per condition, each with the fields a caller
 * needs to act on it and the SDK's error as `cause` where there was one.
 */
import { RaftqError } from '../base/errors.js';

/**
 * A consume() or createProducer() option the library refuses: a value with two opposite readings
 * (a zero visibility timeout), an impossible combination, or one out of bounds. Thrown when the
 * options are given, never at first use.
 */
export class ClientOptionsError extends RaftqError {
  readonly code = 'ClientOptionsInvalid';
  constructor(
    readonly option: string,
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(`Option ${option} is refused: ${reason} (got ${describeValue(value)})`);
  }
}

/** The queue itself failed: it does not exist, access is denied, or it kept failing past the retry bound. */
export class QueueFailedError extends RaftqError {
  readonly code = 'QueueFailed';
  constructor(
    readonly queueUrl: string,
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation} on ${queueUrl} failed: ${causeText(options?.cause)}`, options);
  }
}

/** The queue has no RedrivePolicy, so a message that keeps failing would have nowhere to go. */
export class DeadLetterQueueMissingError extends RaftqError {
  readonly code = 'DeadLetterQueueMissing';
  constructor(readonly queueUrl: string) {
    super(
      `The queue ${queueUrl} has no RedrivePolicy: give it one (deadLetterTargetArn and maxReceiveCount) so that a message whose handler keeps failing ends in a dead-letter queue instead of being retried forever`,
    );
  }
}

/** replayDeadLetter() or deleteDeadLetter() named a message the dead-letter queue does not hold. */
export class DeadLetterNotFoundError extends RaftqError {
  readonly code = 'DeadLetterNotFound';
  constructor(
    readonly queueUrl: string,
    readonly messageId: string,
    readonly scannedCount: number,
  ) {
    super(
      `No dead letter ${messageId} of ${queueUrl} among the ${scannedCount} messages of its dead-letter queue that were scanned`,
    );
  }
}

/** A producer entry that SQS refused for good (sender fault) or that kept failing past the retry bound. */
export class ProducerSendError extends RaftqError {
  readonly code = 'ProducerSendFailed';
  constructor(
    readonly queueUrl: string,
    readonly errorCode: string,
    readonly attempts: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`Sending to ${queueUrl} failed after ${attempts} attempt(s): ${errorCode}: ${message}`, options);
  }
}

/** send() on a producer that was closed. */
export class ProducerClosedError extends RaftqError {
  readonly code = 'ProducerClosed';
  constructor(readonly queueUrl: string) {
    super(`The producer for ${queueUrl} is closed`);
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null)
    return String(value);
  return typeof value;
}

function causeText(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return 'unknown failure';
}
