/**
 * How the client library reads an error from @aws-sdk/client-sqs: its AWS error name, whether the
 * same request may succeed later, and the few conditions the library acts on. Names are compared
 * as both the JSON protocol's shape names and the query protocol's legacy codes, since SQS in
 * query-compatible mode may report either.
 */

export function sqsErrorName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'Unknown';
  const e = error as { name?: unknown; Code?: unknown; code?: unknown };
  if (typeof e.Code === 'string' && e.Code !== '') return e.Code;
  if (typeof e.name === 'string' && e.name !== '') return e.name;
  return typeof e.code === 'string' ? e.code : 'Unknown';
}

function namesOf(error: unknown): string[] {
  if (typeof error !== 'object' || error === null) return [];
  const e = error as { name?: unknown; Code?: unknown; code?: unknown };
  return [e.name, e.Code, e.code].filter((n): n is string => typeof n === 'string');
}

function hasName(error: unknown, names: ReadonlySet<string>): boolean {
  return namesOf(error).some((n) => names.has(n));
}

const unknownActionNames = new Set([
  'InvalidAction',
  'UnknownOperationException',
  'UnknownOperation',
  'UnsupportedOperation',
  'AWS.SimpleQueueService.UnsupportedOperation',
]);

/** The endpoint does not know the action: a plain SQS asked for a raftq extension. */
export function isUnknownActionFailure(error: unknown): boolean {
  return hasName(error, unknownActionNames);
}

const leaseLostNames = new Set([
  'MessageNotInflight',
  'AWS.SimpleQueueService.MessageNotInflight',
  'ReceiptHandleIsInvalid',
  'InvalidParameterValue',
  'InvalidParameterValueException',
]);

/** A receipt handle that no longer holds its message: another consumer may have it now. */
export function isLeaseLostFailure(error: unknown): boolean {
  return hasName(error, leaseLostNames);
}

const transientNames = new Set([
  'ServiceUnavailable',
  'InternalError',
  'InternalFailure',
  'RequestThrottled',
  'ThrottlingException',
  'KmsThrottled',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** True when repeating the same request later may succeed: throttling, a 5xx, a broken connection. */
export function isTransientSqsFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { $fault?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: unknown } };
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  if (e.$fault === 'server') return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  return hasName(error, transientNames);
}

/** The request was cancelled through its abort signal. */
export function isAbortFailure(error: unknown): boolean {
  return namesOf(error).includes('AbortError');
}
