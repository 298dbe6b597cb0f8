/**
 * One class per condition the queue layer reports. Nothing here knows HTTP or AWS error codes:
 * the gateway maps each `code` to an AWS error in its catalogue. Every class carries the fields
 * a caller needs to explain or act on the condition.
 */
import { RaftqError, RetryableError } from '../base/errors.js';

export class QueueDoesNotExistError extends RaftqError {
  readonly code = 'QueueDoesNotExist';
  constructor(
    readonly queueName: string,
    options?: { cause?: unknown },
  ) {
    super(`The specified queue does not exist: ${queueName}`, options);
  }
}

/** CreateQueue on an existing name with attributes that differ from the queue's. */
export class QueueAlreadyExistsError extends RaftqError {
  readonly code = 'QueueAlreadyExists';
  constructor(
    readonly queueName: string,
    readonly attributeName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `A queue already exists with the same name and a different value for attribute ${attributeName}: ${queueName}`,
      options,
    );
  }
}

/** An attribute name this operation does not know or may not set. */
export class InvalidAttributeNameError extends RaftqError {
  readonly code = 'InvalidAttributeName';
  constructor(
    readonly attributeName: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    // AWS's sentence for every name it does not take; the reason stays a field.
    super(`Unknown Attribute ${attributeName}.`, options);
  }
}

/** A queue attribute whose value is out of range, malformed, or forbidden in the queue's state. */
export class InvalidAttributeValueError extends RaftqError {
  readonly code = 'InvalidAttributeValue';
  constructor(
    readonly attributeName: string,
    readonly value: string,
    readonly reason: string,
    /** `message`: AWS's own sentence, where clients match on it. */
    options?: { cause?: unknown; message?: string },
  ) {
    super(options?.message ?? `Invalid value for the parameter ${attributeName}: ${reason}`, options);
  }
}

/** A request parameter whose value the queue's state forbids (e.g. DelaySeconds on a FIFO message). */
export class InvalidParameterValueError extends RaftqError {
  readonly code = 'InvalidParameterValue';
  /** `message`: AWS's own sentence, where clients match on it. */
  constructor(
    readonly parameterName: string,
    readonly reason: string,
    options?: { cause?: unknown; message?: string },
  ) {
    super(options?.message ?? `Invalid value for the parameter ${parameterName}: ${reason}`, options);
  }
}

/** A parameter the queue's type requires (e.g. MessageGroupId on a FIFO queue). */
export class MissingParameterError extends RaftqError {
  readonly code = 'MissingParameter';
  constructor(
    readonly parameterName: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    // AWS's exact sentence: clients and conformance checks match it; the reason stays a field.
    super(`The request must contain the parameter ${parameterName}.`, options);
  }
}

/** A second PurgeQueue within the cooldown (sqsLimits.purgeCooldownMs) of the last one. */
export class PurgeQueueInProgressError extends RaftqError {
  readonly code = 'PurgeQueueInProgress';
  constructor(
    readonly queueName: string,
    readonly lastPurgeAtMs: number,
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(
      `Only one PurgeQueue operation on ${queueName} is allowed every 60 seconds: retry in ${Math.ceil(retryAfterMs / 1000)} s`,
      options,
    );
  }
}

/** A receipt handle that is malformed, or belongs to another queue, generation or queue shape. */
export class ReceiptHandleIsInvalidError extends RaftqError {
  readonly code = 'ReceiptHandleIsInvalid';
  constructor(
    readonly receiptHandle: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    // AWS's sentence, which clients match on; the reason stays a field.
    super(`The input receipt handle "${receiptHandle}" is not a valid receipt handle.`, options);
  }
}

/**
 * A well-formed receipt handle of this queue that can no longer be used: the message is gone, or
 * (FIFO) the receive it names is over. AWS reports it as InvalidParameterValue, in these words.
 */
export function receiptHandleUnusable(receiptHandle: string, reason: 'gone' | 'expired'): InvalidParameterValueError {
  const why =
    reason === 'gone'
      ? 'Message does not exist or is not available for visibility timeout change'
      : 'The receipt handle has expired';
  return new InvalidParameterValueError('ReceiptHandle', why, {
    message: `Value ${receiptHandle} for parameter ReceiptHandle is invalid. Reason: ${why}.`,
  });
}

/** ChangeMessageVisibility on a message that is not in flight (or a handle whose receive is over). */
export class MessageNotInflightError extends RaftqError {
  readonly code = 'MessageNotInflight';
  constructor(
    readonly messageId: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The message referred to is not in flight: ${reason}`, options);
  }
}

/** A message body plus attributes larger than the queue's MaximumMessageSize. */
export class MessageTooLongError extends RaftqError {
  readonly code = 'MessageTooLong';
  constructor(
    readonly sizeBytes: number,
    readonly sizeBytesMax: number,
    options?: { cause?: unknown },
  ) {
    super(`Message must be shorter than ${sizeBytesMax} bytes: it has ${sizeBytes}`, options);
  }
}

/** Too many messages in flight, or too many tags: the action would exceed a limit. */
export class OverLimitError extends RaftqError {
  readonly code = 'OverLimit';
  constructor(
    readonly what: string,
    readonly count: number,
    readonly limit: number,
    options?: { cause?: unknown },
  ) {
    super(`Over the limit of ${limit} ${what}: ${count}`, options);
  }
}

/** A message move task (or another resource named by ARN or handle) that does not exist. */
export class ResourceNotFoundError extends RaftqError {
  readonly code = 'ResourceNotFound';
  constructor(
    readonly resource: string,
    options?: { cause?: unknown },
  ) {
    super(`The specified resource does not exist: ${resource}`, options);
  }
}

/** An operation the queue's state does not allow (e.g. a second active move task on a source). */
export class UnsupportedOperationError extends RaftqError {
  readonly code = 'UnsupportedOperation';
  constructor(
    readonly operation: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation} is not supported here: ${reason}`, options);
  }
}

/**
 * Every attempt of a transaction lost to a concurrent one. Retryable: the caller's request did
 * nothing (each attempt that conflicted was rejected whole) and may be sent again.
 */
export class TxnRetriesExhaustedError extends RetryableError {
  readonly code = 'TxnRetriesExhausted';
  constructor(
    readonly operation: string,
    readonly attempts: number,
    readonly lastOutcome: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${operation} lost to concurrent transactions ${attempts} times (last: ${lastOutcome}); retry the request`,
      options,
    );
  }
}
