import { RaftqError, isRaftqError } from '../base/errors.js';

/**
 * The AWS error catalogue: every error the gateway can return, in one place. AWS error codes exist
 * only here, at the edge; the queue layer throws its own classes and `toSqsApiError` maps them.
 *
 * Each entry has the two names a client may read: `name` is the modelled shape (the JSON
 * protocol's `__type`, and the class an SDK instantiates) and `queryCode` is the legacy code of
 * the query protocol, which the JSON protocol also sends in `x-amzn-query-error` so that SDKs in
 * query-compatible mode report the same `Code` over both protocols.
 */
export interface AwsErrorDefinition {
  readonly name: string;
  readonly queryCode: string;
  readonly httpStatus: number;
  /** Sender: the request is wrong and retrying it unchanged fails again. Receiver: our fault. */
  readonly fault: 'Sender' | 'Receiver';
  readonly defaultMessage: string;
}

function sender(name: string, queryCode: string, httpStatus: number, defaultMessage: string): AwsErrorDefinition {
  return { name, queryCode, httpStatus, fault: 'Sender', defaultMessage };
}

function receiver(name: string, httpStatus: number, defaultMessage: string): AwsErrorDefinition {
  return { name, queryCode: name, httpStatus, fault: 'Receiver', defaultMessage };
}

export const awsErrors = {
  // Modelled errors (shapes of the service model), with AWS's legacy query codes.
  QueueDoesNotExist: sender(
    'QueueDoesNotExist',
    'AWS.SimpleQueueService.NonExistentQueue',
    400,
    'The specified queue does not exist.',
  ),
  QueueNameExists: sender(
    'QueueNameExists',
    'QueueAlreadyExists',
    400,
    'A queue with this name already exists with different attributes.',
  ),
  QueueDeletedRecently: sender(
    'QueueDeletedRecently',
    'AWS.SimpleQueueService.QueueDeletedRecently',
    400,
    'You must wait 60 seconds after deleting a queue before you can create another queue with the same name.',
  ),
  PurgeQueueInProgress: sender(
    'PurgeQueueInProgress',
    'AWS.SimpleQueueService.PurgeQueueInProgress',
    403,
    'Only one PurgeQueue operation on a queue is allowed every 60 seconds.',
  ),
  OverLimit: sender('OverLimit', 'OverLimit', 403, 'The queue has reached the limit of in-flight messages.'),
  ReceiptHandleIsInvalid: sender(
    'ReceiptHandleIsInvalid',
    'ReceiptHandleIsInvalid',
    404,
    'The specified receipt handle is not valid.',
  ),
  MessageNotInflight: sender(
    'MessageNotInflight',
    'AWS.SimpleQueueService.MessageNotInflight',
    400,
    'The specified message is not in flight.',
  ),
  InvalidAttributeName: sender(
    'InvalidAttributeName',
    'InvalidAttributeName',
    400,
    'The specified attribute does not exist.',
  ),
  InvalidAttributeValue: sender(
    'InvalidAttributeValue',
    'InvalidAttributeValue',
    400,
    'A queue attribute value is invalid.',
  ),
  InvalidMessageContents: sender(
    'InvalidMessageContents',
    'InvalidMessageContents',
    400,
    'The message contains characters outside the allowed set.',
  ),
  UnsupportedOperation: sender(
    'UnsupportedOperation',
    'AWS.SimpleQueueService.UnsupportedOperation',
    400,
    'This operation is not supported.',
  ),
  EmptyBatchRequest: sender(
    'EmptyBatchRequest',
    'AWS.SimpleQueueService.EmptyBatchRequest',
    400,
    'The batch request does not contain any entries.',
  ),
  TooManyEntriesInBatchRequest: sender(
    'TooManyEntriesInBatchRequest',
    'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    400,
    'The batch request contains more entries than permissible.',
  ),
  BatchEntryIdsNotDistinct: sender(
    'BatchEntryIdsNotDistinct',
    'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    400,
    'Two or more batch entries in the request have the same Id.',
  ),
  InvalidBatchEntryId: sender(
    'InvalidBatchEntryId',
    'AWS.SimpleQueueService.InvalidBatchEntryId',
    400,
    'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
  ),
  BatchRequestTooLong: sender(
    'BatchRequestTooLong',
    'AWS.SimpleQueueService.BatchRequestTooLong',
    400,
    'The length of all the messages put together is more than the limit.',
  ),
  InvalidAddress: sender('InvalidAddress', 'InvalidAddress', 404, 'The specified queue URL is not valid.'),
  InvalidSecurity: sender(
    'InvalidSecurity',
    'InvalidSecurity',
    403,
    'The request was not made over HTTPS or did not use SigV4 for signing.',
  ),
  RequestThrottled: sender(
    'RequestThrottled',
    'RequestThrottled',
    403,
    'The request was denied due to request throttling.',
  ),
  ResourceNotFoundException: sender(
    'ResourceNotFoundException',
    'ResourceNotFoundException',
    404,
    'One or more specified resources do not exist.',
  ),
  // Common errors of every AWS query service (not modelled as shapes).
  InvalidParameterValue: sender('InvalidParameterValue', 'InvalidParameterValue', 400, 'A parameter value is invalid.'),
  MissingParameter: sender('MissingParameter', 'MissingParameter', 400, 'A required parameter is missing.'),
  // The JSON protocol's answer to an X-Amz-Target that names no operation (the service framework's
  // error, not a modelled shape); query-compatible clients read InvalidAction from the header.
  // Listed before InvalidAction so that the query code InvalidAction maps back to InvalidAction.
  UnknownOperationException: sender(
    'UnknownOperationException',
    'InvalidAction',
    400,
    'The action or operation requested is invalid.',
  ),
  InvalidAction: sender('InvalidAction', 'InvalidAction', 400, 'The action or operation requested is invalid.'),
  MissingAction: sender(
    'MissingAction',
    'MissingAction',
    400,
    'The request is missing an action or a required parameter.',
  ),
  // HTTP 404 is the status AWS's common-errors reference gives it.
  MalformedQueryString: sender(
    'MalformedQueryString',
    'MalformedQueryString',
    404,
    'The query string contains a syntax error.',
  ),
  SerializationException: sender(
    'SerializationException',
    'SerializationException',
    400,
    'The request body could not be parsed.',
  ),
  InvalidQueryParameter: sender(
    'InvalidQueryParameter',
    'InvalidQueryParameter',
    400,
    'The query string is malformed or does not adhere to AWS standards.',
  ),
  RequestEntityTooLarge: sender(
    'RequestEntityTooLarge',
    'RequestEntityTooLarge',
    413,
    'The request body is too large.',
  ),
  MissingAuthenticationToken: sender(
    'MissingAuthenticationToken',
    'MissingAuthenticationToken',
    403,
    'The request must contain a valid AWS access key id and signature.',
  ),
  IncompleteSignature: sender(
    'IncompleteSignature',
    'IncompleteSignature',
    400,
    'The request signature does not conform to AWS standards.',
  ),
  InvalidClientTokenId: sender(
    'InvalidClientTokenId',
    'InvalidClientTokenId',
    403,
    'The security token included in the request is invalid.',
  ),
  SignatureDoesNotMatch: sender(
    'SignatureDoesNotMatch',
    'SignatureDoesNotMatch',
    403,
    'The request signature we calculated does not match the signature you provided.',
  ),
  RequestExpired: sender(
    'RequestExpired',
    'RequestExpired',
    400,
    'The request reached the service more than 15 minutes after its date stamp, or its presigned URL expired.',
  ),
  MethodNotAllowed: sender(
    'MethodNotAllowed',
    'MethodNotAllowed',
    405,
    'The HTTP method is not allowed; use GET or POST.',
  ),
  InternalError: receiver('InternalError', 500, 'The request processing has failed because of an unknown error.'),
  ServiceUnavailable: receiver(
    'ServiceUnavailable',
    503,
    'The request has failed due to a temporary failure of the server.',
  ),
} as const satisfies Record<string, AwsErrorDefinition>;

export type AwsErrorName = keyof typeof awsErrors;

const byQueryCode = new Map<string, AwsErrorDefinition>(Object.values(awsErrors).map((d) => [d.queryCode, d]));

/** An error on its way to the client, carrying its catalogue entry and a message a person can act on. */
export class SqsApiError extends RaftqError {
  readonly code: string;
  readonly definition: AwsErrorDefinition;

  constructor(name: AwsErrorName, message?: string, options?: { cause?: unknown }) {
    const definition = awsErrors[name];
    super(message ?? definition.defaultMessage, options);
    this.definition = definition;
    this.code = definition.queryCode;
  }

  get httpStatus(): number {
    return this.definition.httpStatus;
  }
}

/** The catalogue entry for a modelled name or a legacy query code, if either is known. */
export function findAwsError(nameOrCode: string): AwsErrorDefinition | undefined {
  return (awsErrors as Record<string, AwsErrorDefinition>)[nameOrCode] ?? byQueryCode.get(nameOrCode);
}

/**
 * Queue-layer error codes whose names differ from the catalogue's. A queue error whose `code`
 * already is a catalogue name (QueueDoesNotExist, OverLimit, ...) maps without an entry here.
 */
const queueCodeAliases: Readonly<Record<string, AwsErrorName>> = {
  QueueAlreadyExists: 'QueueNameExists',
  MessageTooLong: 'InvalidParameterValue',
  ResourceNotFound: 'ResourceNotFoundException',
};

/**
 * The AWS error for anything thrown below the gateway. Known queue conditions keep their message;
 * a retryable condition (no leader, unknown outcome, conflict retries exhausted) becomes a
 * ServiceUnavailable that SDKs retry; anything else is an InternalError, never a silent 200.
 */
export function toSqsApiError(err: unknown): SqsApiError {
  if (err instanceof SqsApiError) return err;
  if (isRaftqError(err)) {
    const alias = queueCodeAliases[err.code];
    const definition = alias !== undefined ? awsErrors[alias] : findAwsError(err.code);
    // AWS words this one the same way everywhere, and clients match on it.
    if (err.code === 'QueueDoesNotExist')
      return new SqsApiError('QueueDoesNotExist', awsErrors.QueueDoesNotExist.defaultMessage, { cause: err });
    if (err.code === 'MessageTooLong')
      return new SqsApiError('InvalidParameterValue', `One or more parameters are invalid. Reason: ${err.message}.`, {
        cause: err,
      });
    if (definition !== undefined && definition.fault === 'Sender')
      return new SqsApiError(definition.name as AwsErrorName, err.message, { cause: err });
    if (err.isRetryable)
      return new SqsApiError(
        'ServiceUnavailable',
        `The service is temporarily unavailable: ${err.message}. Retry the request.`,
        { cause: err },
      );
    if (definition !== undefined) return new SqsApiError(definition.name as AwsErrorName, err.message, { cause: err });
  }
  return new SqsApiError('InternalError', 'The request processing has failed because of an unknown error.', {
    cause: err,
  });
}
