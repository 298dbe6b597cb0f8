/**
 * Base classes for operating errors: conditions that cross a boundary and that a caller may
 * handle (a lost leader, a conflict, a missing queue). Each condition gets its own subclass with
 * structured fields and an optional `cause`. Programmer errors use assert() instead.
 */
export abstract class RaftqError extends Error {
  /** A stable machine-readable code; the gateway maps codes to AWS errors in one catalogue. */
  abstract readonly code: string;
  /** True when the same request may succeed if retried unchanged (e.g. after a leader change). */
  readonly isRetryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A request the caller may repeat unchanged: the condition is transient. */
export abstract class RetryableError extends RaftqError {
  override readonly isRetryable = true;
}

export function isRaftqError(err: unknown): err is RaftqError {
  return err instanceof RaftqError;
}

export function isRetryable(err: unknown): boolean {
  return err instanceof RaftqError && err.isRetryable;
}
