/**
 * Invariant checks. A failed assertion is a programmer error: the process must not continue
 * with state it no longer understands, so callers never catch AssertionFailedError.
 */
export class AssertionFailedError extends Error {
  override readonly name = 'AssertionFailedError';
}

/**
 * `message` is a string, or a function that builds one: a message with values in it is built only
 * when the check fails. Built eagerly on every call, a message with three timestamps in it cost
 * about 600 ns, more than most checks on a row or an entry (the lint rules refuse it in src/).
 */
export function assert(condition: unknown, message: string | (() => string) = 'assertion failed'): asserts condition {
  if (!condition) throw new AssertionFailedError(typeof message === 'function' ? message() : message);
}

/** Marks a branch the type system proves unreachable; reaching it at run time is a bug. */
export function assertNever(value: never, message = 'unexpected value'): never {
  throw new AssertionFailedError(`${message}: ${String(value)}`);
}
