import { sqsLimits } from '../base/limits.js';
import { messageSizeBytes } from '../queue/message-size.js';
import type { EntryFailure, SendEntry, SendResult } from '../queue/queue-api.js';
import {
  batchErrorEntry,
  compact,
  optionalIntInRange,
  optionalString,
  queueNameOf,
  requireString,
  stringList,
  structureList,
  type ActionHandler,
} from './action-context.js';
import { SqsApiError, toSqsApiError } from './errors.js';
import { md5OfMessageAttributes, md5OfMessageBody, type MessageAttributeValue } from './message-md5.js';
import { selectMessageAttributes, selectSystemAttributes } from './receive-filters.js';
import {
  parseMessageAttributes,
  parseMessageSystemAttributes,
  validateBatchEntries,
  validateFifoToken,
  validateMessageBody,
} from './message-validation.js';
import type { ModelStructure, ModelValue } from './service-model.js';

/**
 * The message actions. Single-message actions are batches of one to the queue layer; a failure of
 * one entry of a batch is a Failed entry, while a failure of the request as a whole (the queue is
 * gone, no leader for any entry) is an error response: never a 200 that hides it (docs/TRAPS.md, trap 12).
 */

const visibilityMax = sqsLimits.visibilityTimeoutSecondsMax.value;
const delayMax = sqsLimits.delaySecondsMax.value;

interface PreparedSend {
  readonly entry: SendEntry;
  readonly md5OfBody: string;
  readonly md5OfAttributes: string | undefined;
  readonly md5OfSystemAttributes: string | undefined;
}

function prepareSend(
  input: ModelStructure,
  entryId: string,
  bodyParameter: string,
  traceHeader: string | undefined,
): PreparedSend {
  const body = validateMessageBody(optionalString(input, 'MessageBody'), bodyParameter);
  const delaySeconds = optionalIntInRange(input, 'DelaySeconds', {
    min: 0,
    max: delayMax,
    reason: `DelaySeconds must be >= 0 and <= ${delayMax}.`,
  });
  const messageAttributes = parseMessageAttributes(input['MessageAttributes']);
  const systemAttributes = withTraceHeader(parseMessageSystemAttributes(input['MessageSystemAttributes']), traceHeader);
  const messageGroupId = validateFifoToken(optionalString(input, 'MessageGroupId'), 'MessageGroupId');
  const messageDeduplicationId = validateFifoToken(
    optionalString(input, 'MessageDeduplicationId'),
    'MessageDeduplicationId',
  );
  const sizeBytes = messageSizeBytes(body, messageAttributes);
  const sizeMax = sqsLimits.messageSizeBytesMax.value;
  if (sizeBytes > sizeMax)
    throw new SqsApiError(
      'InvalidParameterValue',
      `One or more parameters are invalid. Reason: Message must be shorter than ${sizeMax} bytes.`,
    );
  return {
    entry: {
      entryId,
      body,
      messageAttributes,
      systemAttributes,
      ...(delaySeconds !== undefined ? { delaySeconds } : {}),
      ...(messageGroupId !== undefined ? { messageGroupId } : {}),
      ...(messageDeduplicationId !== undefined ? { messageDeduplicationId } : {}),
    },
    md5OfBody: md5OfMessageBody(body),
    md5OfAttributes: md5OfMessageAttributes(messageAttributes),
    md5OfSystemAttributes: md5OfMessageAttributes(systemAttributes),
  };
}

/** As AWS: a message's own AWSTraceHeader wins over the request's X-Ray header. */
function withTraceHeader(
  systemAttributes: Record<string, MessageAttributeValue>,
  traceHeader: string | undefined,
): Record<string, MessageAttributeValue> {
  if (traceHeader === undefined || systemAttributes['AWSTraceHeader'] !== undefined) return systemAttributes;
  return { ...systemAttributes, AWSTraceHeader: { dataType: 'String', stringValue: traceHeader } };
}

function isFailure<T extends object>(result: T | EntryFailure): result is EntryFailure {
  return 'error' in result;
}

/**
 * Turns per-entry failures that are really the request's into an error response: a queue that
 * vanished mid-batch, or every entry refused for a transient reason (SDKs retry a 503 whole).
 */
function escalateRequestFailures(failures: readonly EntryFailure[], entryCount: number): void {
  for (const failure of failures) {
    const apiError = toSqsApiError(failure.error);
    if (apiError.definition.name === 'QueueDoesNotExist') throw apiError;
  }
  if (failures.length === entryCount && failures.length > 0) {
    const first = toSqsApiError(failures[0]?.error);
    if (first.definition.fault === 'Receiver') throw first;
  }
}

export const sendMessage: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const prepared = prepareSend(input, '0', 'MessageBody', ctx.traceHeader);
  const [result] = await ctx.queueService.sendMessages(name, [prepared.entry], { senderId: ctx.senderId });
  if (result === undefined)
    throw new SqsApiError('InternalError', 'The queue layer returned no result for the message.');
  if (isFailure(result)) throw toSqsApiError(result.error);
  return compact({
    MD5OfMessageBody: prepared.md5OfBody,
    MD5OfMessageAttributes: prepared.md5OfAttributes,
    MD5OfMessageSystemAttributes: prepared.md5OfSystemAttributes,
    MessageId: result.messageId,
    SequenceNumber: result.sequenceNumber,
  });
};

/**
 * Bytes of an entry as sent, before validation (the batch limit is checked first): its body and
 * whatever each attribute carries, counted as a valid message's would be.
 */
function rawEntrySizeBytes(entry: ModelStructure): number {
  const body = typeof entry['MessageBody'] === 'string' ? entry['MessageBody'] : '';
  const attributes: Record<string, MessageAttributeValue> = {};
  const raw = entry['MessageAttributes'];
  if (raw !== undefined && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof Uint8Array)) {
    for (const [name, value] of Object.entries(raw)) {
      const v = value as Record<string, ModelValue>;
      attributes[name] = {
        dataType: typeof v['DataType'] === 'string' ? v['DataType'] : '',
        ...(typeof v['StringValue'] === 'string' ? { stringValue: v['StringValue'] } : {}),
        ...(v['BinaryValue'] instanceof Uint8Array ? { binaryValue: v['BinaryValue'] } : {}),
      };
    }
  }
  return messageSizeBytes(body, attributes);
}

export const sendMessageBatch: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const entries = validateBatchEntries(structureList(input, 'Entries'), 'SendMessageBatchRequestEntry');
  const totalBytes = entries.reduce((sum, entry) => sum + rawEntrySizeBytes(entry), 0);
  const batchMax = sqsLimits.batchSizeBytesMax.value;
  if (totalBytes > batchMax)
    throw new SqsApiError(
      'BatchRequestTooLong',
      `Batch requests cannot be longer than ${batchMax} bytes. You have sent ${totalBytes} bytes.`,
    );
  return runBatch<PreparedSend, SendResult>(
    entries,
    (entry, id) => prepareSend(entry, id, 'SendMessageBatchRequestEntry.MessageBody', ctx.traceHeader),
    (prepared) =>
      ctx.queueService.sendMessages(
        name,
        prepared.map((p) => p.entry),
        { senderId: ctx.senderId },
      ),
    (id, p, result) =>
      compact({
        Id: id,
        MessageId: result.messageId,
        MD5OfMessageBody: p.md5OfBody,
        MD5OfMessageAttributes: p.md5OfAttributes,
        MD5OfMessageSystemAttributes: p.md5OfSystemAttributes,
        SequenceNumber: result.sequenceNumber,
      }),
  );
};

export const receiveMessage: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const receiveMax = sqsLimits.receiveMessagesMax.value;
  const waitMax = sqsLimits.receiveWaitSecondsMax.value;
  const maxMessages =
    optionalIntInRange(input, 'MaxNumberOfMessages', {
      min: 1,
      max: receiveMax,
      reason: `Must be between 1 and ${receiveMax}, if provided.`,
    }) ?? 1;
  const visibilityTimeoutSeconds = optionalIntInRange(input, 'VisibilityTimeout', {
    min: 0,
    max: visibilityMax,
    reason: `Must be >= 0 and <= ${visibilityMax}, if provided.`,
  });
  const waitTimeSeconds = optionalIntInRange(input, 'WaitTimeSeconds', {
    min: 0,
    max: waitMax,
    reason: `Must be >= 0 and <= ${waitMax}, if provided.`,
  });
  const receiveRequestAttemptId = validateFifoToken(
    optionalString(input, 'ReceiveRequestAttemptId'),
    'ReceiveRequestAttemptId',
  );
  const systemNames = [...stringList(input, 'AttributeNames'), ...stringList(input, 'MessageSystemAttributeNames')];
  const attributeNames = stringList(input, 'MessageAttributeNames');

  const messages = await ctx.queueService.receiveMessages(name, {
    maxMessages,
    // Read only by a receive that waits, or one forwarded to the leader: the signal is made then.
    get signal() {
      return ctx.signal;
    },
    ...(visibilityTimeoutSeconds !== undefined ? { visibilityTimeoutSeconds } : {}),
    ...(waitTimeSeconds !== undefined ? { waitTimeSeconds } : {}),
    ...(receiveRequestAttemptId !== undefined ? { receiveRequestAttemptId } : {}),
  });
  const out: ModelStructure[] = messages.map((message) => {
    const attributes = selectSystemAttributes(message.attributes, systemNames);
    const messageAttributes = selectMessageAttributes(message.messageAttributes, attributeNames);
    const hasAttributes = Object.keys(attributes).length > 0;
    const hasMessageAttributes = Object.keys(messageAttributes).length > 0;
    return compact({
      MessageId: message.messageId,
      ReceiptHandle: message.receiptHandle,
      MD5OfBody: md5OfMessageBody(message.body),
      Body: message.body,
      Attributes: hasAttributes ? attributes : undefined,
      MD5OfMessageAttributes: md5OfMessageAttributes(messageAttributes),
      MessageAttributes: hasMessageAttributes ? toWireAttributes(messageAttributes) : undefined,
    });
  });
  return out.length > 0 ? { Messages: out } : {};
};

function toWireAttributes(
  attributes: Readonly<Record<string, { dataType: string; stringValue?: string; binaryValue?: Uint8Array }>>,
): ModelStructure {
  const out: ModelStructure = {};
  for (const [name, value] of Object.entries(attributes)) {
    out[name] = compact({ StringValue: value.stringValue, BinaryValue: value.binaryValue, DataType: value.dataType });
  }
  return out;
}

export const deleteMessage: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const receiptHandle = requireString(input, 'ReceiptHandle');
  const [result] = await ctx.queueService.deleteMessages(name, [{ entryId: '0', receiptHandle }]);
  if (result !== undefined && isFailure(result)) throw toSqsApiError(result.error);
  return {};
};

export const changeMessageVisibility: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  const receiptHandle = requireString(input, 'ReceiptHandle');
  const visibilityTimeoutSeconds = requireVisibility(input);
  const [result] = await ctx.queueService.changeMessageVisibility(name, [
    { entryId: '0', receiptHandle, visibilityTimeoutSeconds },
  ]);
  if (result !== undefined && isFailure(result)) throw toSqsApiError(result.error);
  return {};
};

function requireVisibility(input: ModelStructure): number {
  if (input['VisibilityTimeout'] === undefined)
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter VisibilityTimeout.');
  return optionalIntInRange(input, 'VisibilityTimeout', {
    min: 0,
    max: visibilityMax,
    reason: `VisibilityTimeout must be an integer between 0 and ${visibilityMax}.`,
  }) as number;
}

/**
 * The shape every message *Batch action shares: prepare each entry (a failure there is that
 * entry's), call the queue layer once with the prepared ones, and split its results into
 * Successful (shaped by `succeeded`) and Failed, after escalating the failures that are the
 * request's. `entries` are already validated (validateBatchEntries), so their ids are distinct.
 */
async function runBatch<P, R extends { entryId: string }>(
  entries: readonly ModelStructure[],
  prepare: (entry: ModelStructure, id: string) => P,
  call: (prepared: P[]) => Promise<Array<R | EntryFailure>>,
  succeeded: (id: string, prepared: P, result: R) => ModelStructure,
): Promise<ModelStructure> {
  const failed: ModelStructure[] = [];
  const prepared = new Map<string, P>();
  for (const entry of entries) {
    const id = entry['Id'] as string;
    try {
      prepared.set(id, prepare(entry, id));
    } catch (err) {
      failed.push(batchErrorEntry(id, err));
    }
  }
  const results = prepared.size === 0 ? [] : await call([...prepared.values()]);
  escalateRequestFailures(results.filter(isFailure), prepared.size);
  const byId = new Map(results.map((r) => [r.entryId, r]));
  const successful: ModelStructure[] = [];
  for (const [id, p] of prepared) {
    const result = byId.get(id);
    if (result === undefined)
      failed.push(
        batchErrorEntry(id, new SqsApiError('InternalError', 'The queue layer returned no result for this entry.')),
      );
    else if (isFailure(result)) failed.push(batchErrorEntry(id, result.error));
    else successful.push(succeeded(id, p, result));
  }
  return { Successful: successful, Failed: failed };
}

export const deleteMessageBatch: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  return runBatch(
    validateBatchEntries(structureList(input, 'Entries'), 'DeleteMessageBatchRequestEntry'),
    (entry, id) => ({ entryId: id, receiptHandle: requireString(entry, 'ReceiptHandle') }),
    (entries) => ctx.queueService.deleteMessages(name, entries),
    (id) => ({ Id: id }),
  );
};

export const changeMessageVisibilityBatch: ActionHandler = async (ctx, input) => {
  const name = queueNameOf(input);
  return runBatch(
    validateBatchEntries(structureList(input, 'Entries'), 'ChangeMessageVisibilityBatchRequestEntry'),
    (entry, id) => ({
      entryId: id,
      receiptHandle: requireString(entry, 'ReceiptHandle'),
      visibilityTimeoutSeconds: requireVisibility(entry),
    }),
    (entries) => ctx.queueService.changeMessageVisibility(name, entries),
    (id) => ({ Id: id }),
  );
};
