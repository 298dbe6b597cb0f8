/**
 * The admin port's queue calls (docs/OPERATIONS.md, "Queues"): list the queues with their counts,
 * one queue in detail, peek at messages without receiving them, purge, start a redrive of a
 * dead-letter queue, and send a test message. They sit behind the admin token like every admin
 * call but /health and /ready.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Buffer } from 'node:buffer';
import { isRaftqError, isRetryable } from '../base/errors.js';
import type {
  MessageAttributes,
  MessageAttributeValue,
  PeekedMessage,
  QueueService,
  SendEntry,
} from '../queue/queue-service.js';
import { validateMessageBody } from '../sqs/message-validation.js';
import { HttpError, readJsonBody, sendJson, type JsonBody } from './http-json.js';

export const peekLimitDefault = 10;
export const peekLimitMax = 100;
/** The SenderId of messages sent through POST /queues/NAME/messages. */
export const adminSenderId = 'raftq-admin';

const queuePathPattern = /^\/queues\/([^/]+)(\/messages|\/purge|\/redrive)?$/;

/** Answers the request and returns true when `path` is one of the queue calls; false otherwise. */
export async function routeQueues(
  queueService: QueueService | undefined,
  method: string,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  const path = url.pathname;
  if (path !== '/queues' && !path.startsWith('/queues/')) return false;
  if (queueService === undefined) throw new HttpError(503, 'this node serves no queues');
  try {
    if (path === '/queues') {
      if (method !== 'GET') throw new HttpError(405, `${method} /queues is not allowed; use GET`);
      const summaries = await queueService.queueSummaries();
      sendJson(response, 200, {
        queues: summaries.map(({ isExact, ...summary }) => ({ ...summary, countsExact: isExact })),
      });
      return true;
    }
    const match = queuePathPattern.exec(path);
    if (match === null) return false;
    const name = decodeURIComponent(match[1] as string);
    const action = `${method} ${match[2] ?? ''}`;
    if (action === 'GET ') sendJson(response, 200, await describeQueue(queueService, name));
    else if (action === 'GET /messages') sendJson(response, 200, await peek(queueService, name, url.searchParams));
    else if (action === 'POST /purge') {
      await queueService.purgeQueue(name);
      sendJson(response, 200, { queue: name, purged: true });
    } else if (action === 'POST /redrive')
      sendJson(response, 200, await redrive(queueService, name, await readJsonBody(request)));
    else if (action === 'POST /messages')
      sendJson(response, 200, await sendTestMessage(queueService, name, await readJsonBody(request)));
    else throw new HttpError(405, `${method} ${path} is not allowed`);
    return true;
  } catch (error) {
    throw asHttpError(error);
  }
}

async function describeQueue(queueService: QueueService, name: string): Promise<JsonBody> {
  const summary = await queueService.queueSummary(name);
  const arn = queueService.queueArn(name);
  const [attributes, tags, sources, tasks] = await Promise.all([
    queueService.getQueueAttributes(name, ['All']),
    queueService.listQueueTags(name),
    allDeadLetterSources(queueService, name),
    queueService.listMessageMoveTasks({ sourceArn: arn, maxResults: 10 }),
  ]);
  const { isExact, ...counts } = summary;
  return {
    ...counts,
    countsExact: isExact,
    arn,
    attributes,
    tags,
    deadLetterSourceQueues: sources,
    moveTasks: tasks.filter((task) => task.status === 'RUNNING' || task.status === 'CANCELLING'),
  };
}

async function allDeadLetterSources(queueService: QueueService, name: string): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await queueService.listDeadLetterSourceQueues(name, {
      maxResults: 1000,
      ...(nextToken === undefined ? {} : { nextToken }),
    });
    names.push(...page.names);
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return names;
}

async function peek(queueService: QueueService, name: string, params: URLSearchParams): Promise<JsonBody> {
  const limitText = params.get('limit');
  const limit = limitText === null ? peekLimitDefault : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > peekLimitMax)
    throw new HttpError(400, `limit must be an integer from 1 to ${peekLimitMax}, got "${limitText}"`);
  const messages = await queueService.peekMessages(name, limit);
  return { queue: name, messages: messages.map(peekedJson) };
}

function peekedJson(message: PeekedMessage): JsonBody {
  return {
    messageId: message.messageId,
    body: message.body,
    state: message.state,
    inFlight: message.state === 'inflight',
    receiveCount: message.receiveCount,
    sentAt: new Date(message.sentAtMs).toISOString(),
    visibleAt: new Date(message.visibleAtMs).toISOString(),
    ...(message.firstReceiveAtMs !== undefined
      ? { firstReceivedAt: new Date(message.firstReceiveAtMs).toISOString() }
      : {}),
    senderId: message.senderId,
    ...(message.messageGroupId !== undefined ? { messageGroupId: message.messageGroupId } : {}),
    ...(message.messageDeduplicationId !== undefined ? { messageDeduplicationId: message.messageDeduplicationId } : {}),
    ...(message.sequenceNumber !== undefined ? { sequenceNumber: message.sequenceNumber } : {}),
    ...(message.deadLetterSourceArn !== undefined ? { deadLetterSourceArn: message.deadLetterSourceArn } : {}),
    messageAttributes: attributesJson(message.messageAttributes),
    ...(Object.keys(message.systemAttributes).length > 0
      ? { messageSystemAttributes: attributesJson(message.systemAttributes) }
      : {}),
  };
}

function attributesJson(attributes: MessageAttributes): Record<string, JsonBody> {
  const out: Record<string, JsonBody> = {};
  for (const [name, value] of Object.entries(attributes)) {
    out[name] = {
      dataType: value.dataType,
      ...(value.stringValue !== undefined ? { stringValue: value.stringValue } : {}),
      ...(value.binaryValue !== undefined ? { binaryValue: Buffer.from(value.binaryValue).toString('base64') } : {}),
    };
  }
  return out;
}

/** Starts a move task from the dead-letter queue `name` back to the queues its messages came from (or to `destination`). */
async function redrive(queueService: QueueService, name: string, body: JsonBody): Promise<JsonBody> {
  const destination = optionalString(body, 'destination');
  const rate = body['maxMessagesPerSecond'];
  if (rate !== undefined && typeof rate !== 'number') throw new HttpError(400, 'maxMessagesPerSecond must be a number');
  await queueService.queueSummary(name); // 404 before the move task's own checks
  const { taskHandle } = await queueService.startMessageMoveTask({
    sourceArn: queueService.queueArn(name),
    ...(destination === undefined ? {} : { destinationArn: queueService.queueArn(destination) }),
    ...(rate === undefined ? {} : { maxNumberOfMessagesPerSecond: rate }),
  });
  return { queue: name, taskHandle, ...(destination === undefined ? {} : { destination }) };
}

async function sendTestMessage(queueService: QueueService, name: string, body: JsonBody): Promise<JsonBody> {
  const text = body['body'];
  if (typeof text !== 'string')
    throw new HttpError(
      400,
      'expected {"body": "…"} (and optionally delaySeconds, messageGroupId, messageDeduplicationId, attributes)',
    );
  validateMessageBody(text);
  const delaySeconds = body['delaySeconds'];
  if (
    delaySeconds !== undefined &&
    (typeof delaySeconds !== 'number' || !Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900)
  ) {
    throw new HttpError(400, 'delaySeconds must be an integer from 0 to 900');
  }
  const messageGroupId = optionalString(body, 'messageGroupId');
  const messageDeduplicationId = optionalString(body, 'messageDeduplicationId');
  const entry: SendEntry = {
    entryId: 'admin',
    body: text,
    messageAttributes: stringAttributes(body['attributes']),
    systemAttributes: {},
    ...(delaySeconds === undefined ? {} : { delaySeconds }),
    ...(messageGroupId === undefined ? {} : { messageGroupId }),
    ...(messageDeduplicationId === undefined ? {} : { messageDeduplicationId }),
  };
  const [result] = await queueService.sendMessages(name, [entry], { senderId: adminSenderId });
  if (result === undefined) throw new HttpError(500, 'the send answered nothing');
  if ('error' in result) throw result.error;
  return {
    queue: name,
    messageId: result.messageId,
    ...(result.sequenceNumber === undefined ? {} : { sequenceNumber: result.sequenceNumber }),
  };
}

/** `{"name": "value"}` → String message attributes. */
function stringAttributes(raw: unknown): Record<string, MessageAttributeValue> {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new HttpError(400, 'attributes must be an object of names to string values');
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9_.-]{1,256}$/.test(name))
      throw new HttpError(400, `attribute ${name}: names are letters, digits, _ . - and values strings`);
    attributes[name] = { dataType: 'String', stringValue: value };
  }
  return attributes;
}

function optionalString(body: JsonBody, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${field} must be a non-empty string`);
  return value;
}

/** Queue errors as admin answers: a missing queue is 404, a refused request 400 (409 for a purge too soon), retryable ones 503. */
function asHttpError(error: unknown): unknown {
  if (error instanceof HttpError || !isRaftqError(error) || isRetryable(error)) return error;
  const status =
    error.code === 'QueueDoesNotExist' || error.code === 'AWS.SimpleQueueService.NonExistentQueue'
      ? 404
      : error.code === 'PurgeQueueInProgress'
        ? 409
        : 400;
  return new HttpError(status, `${error.code}: ${error.message}`);
}
