import { randomUUID } from 'node:crypto';
import type { Cancellation } from '../base/cancellation.js';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import type { QueueOperations } from '../queue/queue-operations.js';
import type { ActionContext, ActionHandler } from './action-context.js';
import { SqsApiError, toSqsApiError } from './errors.js';
import {
  decodeJsonRequest,
  encodeJsonError,
  encodeJsonResponse,
  jsonBodyText,
  jsonContentType,
} from './json-protocol.js';
import {
  decodeQueryRequest,
  encodeXmlError,
  encodeXmlResponse,
  formBodyText,
  parseFormParameters,
  xmlContentType,
} from './query-protocol.js';
import { buildQueueUrl, queueNameFromPath } from './queue-url.js';
import type { ModelStructure, Operation, SqsServiceModel } from './service-model.js';
import type { SigV4Verifier } from './sigv4-verifier.js';
import { gatewayActions } from './sqs-actions.js';
import { queueNameOfInput, type SqsRequestObserver } from './request-observer.js';

/**
 * One SQS request from bytes to bytes, without a socket: protocol detection, SigV4, decoding
 * against the model, the action, encoding, and the error catalogue. sqs-server.ts feeds it from
 * node:http; tests feed it directly.
 */

export interface GatewayRequest {
  readonly method: string;
  /** Path and query as on the request line. */
  readonly rawUrl: string;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

export interface GatewayResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The action, when the request named a known one (for logs and metrics). */
  readonly action?: string;
  /** The queue the request addressed, and the AWS error code of an error answer (for logs and metrics). */
  readonly queueName?: string;
  readonly code?: string;
}

export interface GatewayLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface SqsRequestHandlerOptions {
  readonly queueService: QueueOperations;
  readonly model: SqsServiceModel;
  /** Without one every caller is accepted (a development node). */
  readonly verifier?: SigV4Verifier;
  readonly accountId: string;
  readonly logger: GatewayLogger;
  /** The Host to put in queue URLs when a request has no Host header. */
  readonly defaultHost: string;
  /** The scheme of queue URLs: https when the endpoint serves TLS. */
  readonly scheme?: 'http' | 'https';
  readonly newRequestId?: () => string;
  /** Told about every answered request (request-observer.ts). */
  readonly observer?: SqsRequestObserver;
}

type Protocol = 'json' | 'query';

export class SqsRequestHandler {
  private readonly newRequestId: () => string;

  constructor(private readonly options: SqsRequestHandlerOptions) {
    this.newRequestId = options.newRequestId ?? randomUUID;
  }

  /**
   * `abort` is the request's own cancellation: whoever serves the socket aborts it when the client
   * goes away, and the gateway aborts it at the request's deadline. Its signal is made only when
   * an action asks for it (base/cancellation.ts).
   */
  async handle(request: GatewayRequest, abort: Cancellation): Promise<GatewayResponse> {
    const startedAtMs = performance.now();
    const response = await this.respond(request, abort);
    this.options.observer?.({
      action: response.action,
      queueName: response.queueName,
      status: response.status,
      code: response.code ?? 'OK',
      durationMs: performance.now() - startedAtMs,
    });
    return response;
  }

  private async respond(request: GatewayRequest, abort: Cancellation): Promise<GatewayResponse> {
    const requestId = this.newRequestId();
    const headers = headerMap(request.rawHeaders);
    const target = headers.get('x-amz-target');
    // A JSON-typed body without a target is still a JSON client: answer it in JSON (UnknownOperationException).
    const isJsonBody = (headers.get('content-type') ?? '').startsWith('application/x-amz-json');
    const protocol: Protocol = target !== undefined || isJsonBody ? 'json' : 'query';
    let action: string | undefined;
    let queueName: string | undefined;
    try {
      if (request.method !== 'POST' && request.method !== 'GET')
        throw new SqsApiError(
          'MethodNotAllowed',
          `The HTTP method ${request.method} is not allowed; SQS requests are POST (or GET for the query protocol).`,
        );
      const queryIndex = request.rawUrl.indexOf('?');
      const path = queryIndex < 0 ? request.rawUrl : request.rawUrl.slice(0, queryIndex);
      const urlParams = parseFormParameters(queryIndex < 0 ? '' : request.rawUrl.slice(queryIndex + 1));
      const caller = this.options.verifier?.verify(request);
      const senderId = caller?.accessKeyId ?? this.options.accountId;
      let params: ReadonlyMap<string, string> | undefined;
      if (protocol === 'json') {
        action = jsonAction(target ?? '', this.options.model.targetPrefix);
      } else {
        params =
          request.method === 'POST'
            ? mergeParams(urlParams, parseFormParameters(formBodyText(request.body)))
            : urlParams;
        action = params.get('Action');
        if (action === undefined || action === '')
          throw new SqsApiError('MissingAction', 'The request must contain the parameter Action.');
      }
      const { operation, handler } = this.requireAction(action, protocol);
      const input =
        params === undefined
          ? decodeJsonRequest(this.options.model, operation.inputShape, jsonBodyText(request.body))
          : decodeQueryRequest(this.options.model, operation.inputShape, params);
      const queueUrl = this.queueUrlBuilder(headers);
      this.fillQueueUrlFromPath(operation.inputShape, input, path, queueUrl);
      this.checkRequiredMembers(operation.inputShape, input);
      queueName = queueNameOfInput(input);
      const output = await this.runWithDeadline(action, abort, () =>
        handler(this.actionContext(headers, queueUrl, senderId, abort), input),
      );
      return protocol === 'json'
        ? {
            status: 200,
            headers: { 'content-type': jsonContentType, 'x-amzn-requestid': requestId },
            body: encodeJsonResponse(this.options.model, operation.outputShape, output),
            action,
            ...(queueName === undefined ? {} : { queueName }),
          }
        : {
            status: 200,
            headers: { 'content-type': xmlContentType, 'x-amzn-requestid': requestId },
            body: encodeXmlResponse(this.options.model, action, operation.outputShape, output, requestId),
            action,
            ...(queueName === undefined ? {} : { queueName }),
          };
    } catch (err) {
      return {
        ...this.errorResponse(err, protocol, requestId, action),
        ...(queueName === undefined ? {} : { queueName }),
      };
    }
  }

  /**
   * The model's operation and the gateway's handler of an action, looked up once per request. An
   * action needs both: a newer model (RAFTQ_SQS_SERVICE_MODEL) may name operations raftq does not
   * serve. The JSON protocol names an unknown operation the way AWS's JSON services do; the query
   * protocol says InvalidAction.
   */
  private requireAction(action: string, protocol: Protocol): { operation: Operation; handler: ActionHandler } {
    const operation = this.options.model.operation(action);
    const handler = gatewayActions[action];
    if (operation === undefined || handler === undefined) {
      throw new SqsApiError(
        protocol === 'json' ? 'UnknownOperationException' : 'InvalidAction',
        `The action ${action.slice(0, 128)} is not valid for this endpoint.`,
      );
    }
    return { operation, handler };
  }

  /** Queue URLs name the host the client reached (its Host header), so it can reach them again. */
  private queueUrlBuilder(headers: ReadonlyMap<string, string>): (queueName: string) => string {
    const host = headers.get('host') ?? this.options.defaultHost;
    const { accountId } = this.options;
    const scheme = this.options.scheme ?? 'http';
    return (queueName) => buildQueueUrl({ host, accountId, queueName, scheme });
  }

  private actionContext(
    headers: ReadonlyMap<string, string>,
    queueUrl: (queueName: string) => string,
    senderId: string,
    abort: Cancellation,
  ): ActionContext {
    const traceHeader = headers.get('x-amzn-trace-id');
    return {
      queueService: this.options.queueService,
      model: this.options.model,
      senderId,
      // Made when an action first asks for it (base/cancellation.ts).
      get signal() {
        return abort.signal;
      },
      ...(traceHeader === undefined || traceHeader === '' ? {} : { traceHeader }),
      queueUrl,
    };
  }

  /** The query protocol may address the queue by the request path instead of a QueueUrl parameter. */
  private fillQueueUrlFromPath(
    inputShape: string | undefined,
    input: ModelStructure,
    path: string,
    queueUrl: (queueName: string) => string,
  ): void {
    if (inputShape === undefined || input['QueueUrl'] !== undefined) return;
    const shape = this.options.model.shape(inputShape);
    if (shape.type !== 'structure' || shape.members['QueueUrl'] === undefined) return;
    const name = queueNameFromPath(path);
    if (name === undefined) return;
    input['QueueUrl'] = queueUrl(name);
  }

  /** Required scalar members (lists and maps get their own, more specific, errors in the actions). */
  private checkRequiredMembers(inputShape: string | undefined, input: ModelStructure): void {
    if (inputShape === undefined) return;
    const shape = this.options.model.shape(inputShape);
    if (shape.type !== 'structure') return;
    for (const member of shape.required ?? []) {
      const ref = shape.members[member];
      if (ref === undefined) continue;
      const memberType = this.options.model.shape(ref.shape).type;
      if (memberType === 'list' || memberType === 'map') continue;
      if (input[member] === undefined || input[member] === '')
        throw new SqsApiError('MissingParameter', `The request must contain the parameter ${member}.`);
    }
  }

  /**
   * Bounds every action: a request that has not finished by its deadline (its long-poll wait plus
   * gatewayRequestTimeoutMs) is answered with a retryable 503 and its work is aborted, so no
   * client ever hangs on a cluster without a leader.
   */
  private async runWithDeadline(
    action: string,
    abort: Cancellation,
    run: () => Promise<ModelStructure>,
  ): Promise<ModelStructure> {
    const waitSeconds = action === 'ReceiveMessage' ? sqsLimits.receiveWaitSecondsMax.value : 0;
    const deadlineMs = waitSeconds * 1000 + raftqLimits.gatewayRequestTimeoutMs.value;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort(new Error('deadline'));
        reject(
          new SqsApiError(
            'ServiceUnavailable',
            `${action} did not complete within ${deadlineMs} ms (no leader, or the cluster is overloaded); its outcome is unknown. Retry the request.`,
          ),
        );
      }, deadlineMs);
    });
    try {
      return await Promise.race([run(), deadline]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private errorResponse(
    err: unknown,
    protocol: Protocol,
    requestId: string,
    action: string | undefined,
  ): GatewayResponse {
    const apiError = toSqsApiError(err);
    if (apiError.definition.fault === 'Receiver') {
      this.options.logger.error(
        { err: apiError.cause ?? apiError, action, requestId, code: apiError.code },
        `SQS ${action ?? 'request'} failed: ${apiError.message}`,
      );
    }
    const encoded =
      protocol === 'json'
        ? encodeJsonError(apiError.definition, apiError.message)
        : encodeXmlError(apiError.definition, apiError.message, requestId);
    return {
      status: encoded.status,
      headers: { ...encoded.headers, 'x-amzn-requestid': requestId },
      body: encoded.body,
      code: apiError.code,
      ...(action !== undefined ? { action } : {}),
    };
  }
}

function jsonAction(target: string, prefix: string): string {
  const dot = target.indexOf('.');
  if (dot < 0 || target.slice(0, dot) !== prefix)
    throw new SqsApiError(
      'UnknownOperationException',
      `The X-Amz-Target ${target.slice(0, 128)} is not valid for this endpoint; expected ${prefix}.<Action>.`,
    );
  return target.slice(dot + 1);
}

function headerMap(rawHeaders: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    if (!headers.has(name)) headers.set(name, rawHeaders[i + 1] ?? '');
  }
  return headers;
}

/** Body parameters win over query-string ones of the same name. */
function mergeParams(fromUrl: ReadonlyMap<string, string>, fromBody: ReadonlyMap<string, string>): Map<string, string> {
  const merged = new Map(fromUrl);
  for (const [key, value] of fromBody) merged.set(key, value);
  return merged;
}
