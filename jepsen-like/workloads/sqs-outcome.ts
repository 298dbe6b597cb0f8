/**
 * How an SQS call's error becomes a history outcome. The rule is conservative, since a checker
 * trusts `fail` to mean "did not happen":
 * - an answer with a 4xx status is the node refusing the request: fail (definitely not done);
 * - a 5xx answer, a timeout, a reset or refused connection, anything else: info (unknown) — a
 *   request may have been committed by the leader even though the node that took it could not say so.
 */
export interface ClassifiedError {
  readonly outcome: 'fail' | 'info';
  /** The SQS error name (e.g. QueueDoesNotExist) or the network error code (e.g. ECONNRESET). */
  readonly code: string;
  readonly message: string;
  readonly httpStatus?: number;
}

export function classifySqsError(err: unknown): ClassifiedError {
  const e = (err ?? {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    cause?: unknown;
  };
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const code = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message.slice(0, 300) : String(err).slice(0, 300);
  if (status !== undefined && status >= 400 && status < 500)
    return { outcome: 'fail', code, message, httpStatus: status };
  return { outcome: 'info', code, message, ...(status === undefined ? {} : { httpStatus: status }) };
}

export function isQueueDoesNotExist(classified: ClassifiedError): boolean {
  return classified.code === 'QueueDoesNotExist' || classified.code === 'AWS.SimpleQueueService.NonExistentQueue';
}

export function isQueueAlreadyExists(classified: ClassifiedError): boolean {
  return classified.code === 'QueueNameExists' || classified.code === 'QueueAlreadyExists';
}
