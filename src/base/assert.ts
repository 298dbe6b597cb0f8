/**
 * Invariant checks. A failed assertion is a programmer error: the process must not continue
 * with state it no longer understands, so callers never catch AssertionFailedError.
 */
export class AssertionFailedError extends Error {
  override readonly name = 'AssertionFailedError';
}

export function assert(condition: unknown, message = 'assertion failed'): asserts condition {
  if (!condition) throw new AssertionFailedError(message);
}

/** Marks a branch the type system proves unreachable; reaching it at run time is a bug. */
export function assertNever(value: never, message = 'unexpected value'): never {
  throw new AssertionFailedError(`${message}: ${String(value)}`);
}
