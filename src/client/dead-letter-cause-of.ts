/**
 * The cause a dead letter records for a handler's failure: the error's name, code and PUBLIC
 * message, never its stack or the errors it wraps. A dead-letter queue is read by whoever
 * investigates, often outside the trust domain that failed, so private detail stays in logs (the
 * message id is the join key back to them).
 *
 * The public message is the error's `publicMessage` when it has one (a string), else its
 * `message`: keep private detail out of messages, or give such errors a `publicMessage`.
 */
import { boundDeadLetterCause, type DeadLetterCause } from '../base/dead-letter-cause.js';
import { isNotRetryable, unwrapNotRetryable } from './do-not-retry.js';

export function deadLetterCauseOf(failure: unknown): DeadLetterCause {
  const marked = isNotRetryable(failure);
  const error = marked ? unwrapNotRetryable(failure) : failure;
  if (error instanceof Error) {
    const publicMessage = (error as { publicMessage?: unknown }).publicMessage;
    const rawCode = (error as { code?: unknown }).code;
    const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : undefined;
    const message = typeof publicMessage === 'string' ? publicMessage : error.message;
    return boundDeadLetterCause(
      code === undefined ? { name: error.name || 'Error', message } : { name: error.name || 'Error', code, message },
    );
  }
  if (marked) {
    const message = typeof error === 'string' ? error : 'The handler marked the message as one no retry can fix';
    return boundDeadLetterCause({ name: 'NotRetryable', message });
  }
  // A thrown non-Error says nothing reliable about itself; its contents are not published.
  return { name: 'NonErrorThrown', message: `The handler threw a value of type ${typeof error} instead of an Error` };
}
