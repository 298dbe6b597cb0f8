/**
 * doNotRetry(): the mark a handler puts on a failure that no retry can fix (a payload that does
 * not decode will not decode on the fifth attempt either). consume() dead-letters such a message
 * on its FIRST failure, recording the wrapped error as the cause.
 */
import { RaftqError } from '../base/errors.js';

const notRetryableCode = 'NotRetryable';

export class NotRetryableError extends RaftqError {
  readonly code = notRetryableCode;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : 'The handler marked the message as one no retry can fix', { cause });
  }
}

/** Wraps `cause` so that consume() dead-letters the message at once, with `cause` as the reason. */
export function doNotRetry(cause: unknown): Error {
  return new NotRetryableError(cause);
}

/** How deep isNotRetryable() looks through `cause` links for the mark. */
const causeDepthMax = 8;

/**
 * True when `error`, or an error it wraps (through `cause`), was made by doNotRetry(). Recognised by
 * its code rather than by class, so two copies of this library in one process agree.
 */
export function isNotRetryable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < causeDepthMax && current instanceof Error; depth++) {
    if ((current as { code?: unknown }).code === notRetryableCode && current.name === 'NotRetryableError') return true;
    current = current.cause;
  }
  return false;
}

/** The error doNotRetry() wrapped, or `error` itself when it carries no mark. */
export function unwrapNotRetryable(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < causeDepthMax && current instanceof Error; depth++) {
    if ((current as { code?: unknown }).code === notRetryableCode && current.name === 'NotRetryableError')
      return current.cause;
    current = current.cause;
  }
  return error;
}
