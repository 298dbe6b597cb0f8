/**
 * The arguments and answers of forwarded queue operations as bytes (proto/queue-ops.proto), and
 * back. Per-entry errors keep the queue layer's code, message and retryability, so the follower's
 * gateway words them exactly as the leader's would have.
 */
import { isRaftqError, type RaftqError } from '../base/errors.js';
import { RemoteOperationError } from '../cluster/errors.js';
import { raftq } from '../gen/proto.js';
import type {
  ChangeVisibilityEntry,
  DeleteEntry,
  EntryFailure,
  EntrySuccess,
  MessageAttributes,
  MessageAttributeValue,
  ReceivedMessage,
  ReceiveOptions,
  SendEntry,
  SendResult,
} from '../queue/queue-api.js';

const ops = raftq.ops;

export interface SendArgs {
  readonly queue: string;
  readonly entries: readonly SendEntry[];
  readonly senderId: string;
  readonly messageIds: readonly string[];
  readonly idempotencyKey: string;
}

/** A receive's options as they travel: the signal stays behind (a cancel on the stream replaces it). */
export type ReceiveArgs = { readonly queue: string } & Omit<ReceiveOptions, 'signal'>;

export interface HandleArgs<E> {
  readonly queue: string;
  readonly entries: readonly E[];
}

export type SendOutcome = SendResult | EntryFailure;
export type HandleOutcome = EntrySuccess | EntryFailure;

// ---- attributes and errors ----------------------------------------------------------------

function attributesToWire(attributes: MessageAttributes): raftq.ops.MessageAttribute.$Properties[] {
  return Object.entries(attributes).map(([name, value]) => ({
    name,
    dataType: value.dataType,
    ...(value.stringValue !== undefined ? { hasStringValue: true, stringValue: value.stringValue } : {}),
    ...(value.binaryValue !== undefined ? { hasBinaryValue: true, binaryValue: value.binaryValue } : {}),
  }));
}

function attributesFromWire(
  attributes: readonly raftq.ops.MessageAttribute.$Properties[] | null | undefined,
): MessageAttributes {
  const out: Record<string, MessageAttributeValue> = {};
  for (const a of attributes ?? []) {
    out[a.name ?? ''] = {
      dataType: a.dataType ?? '',
      ...(a.hasStringValue === true ? { stringValue: a.stringValue ?? '' } : {}),
      ...(a.hasBinaryValue === true ? { binaryValue: plainBytes(a.binaryValue) } : {}),
    };
  }
  return out;
}

/** The decoder hands out Buffers; the queue layer's values are plain Uint8Arrays (a view, not a copy). */
function plainBytes(bytes: Uint8Array | null | undefined): Uint8Array {
  if (bytes === null || bytes === undefined) return new Uint8Array(0);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function errorToWire(error: RaftqError | Error): raftq.ops.EntryError.$Properties {
  return isRaftqError(error)
    ? { code: error.code, message: error.message, isRetryable: error.isRetryable }
    : { code: '', message: error.message, isRetryable: false };
}

function errorFromWire(error: raftq.ops.EntryError.$Properties): RaftqError {
  return new RemoteOperationError(error.code || 'InternalFailure', error.message ?? '', error.isRetryable === true);
}

function isFailure<T extends object>(outcome: T | EntryFailure): outcome is EntryFailure {
  return 'error' in outcome;
}

// ---- SendMessage(Batch) ---------------------------------------------------------------------

export function encodeSendArgs(args: SendArgs): Uint8Array {
  return ops.SendArgs.encode({
    queue: args.queue,
    senderId: args.senderId,
    messageIds: [...args.messageIds],
    idempotencyKey: args.idempotencyKey,
    entries: args.entries.map((entry) => ({
      entryId: entry.entryId,
      body: entry.body,
      ...(entry.delaySeconds !== undefined ? { hasDelaySeconds: true, delaySeconds: entry.delaySeconds } : {}),
      messageAttributes: attributesToWire(entry.messageAttributes),
      systemAttributes: attributesToWire(entry.systemAttributes),
      ...(entry.messageGroupId !== undefined ? { hasMessageGroupId: true, messageGroupId: entry.messageGroupId } : {}),
      ...(entry.messageDeduplicationId !== undefined
        ? { hasMessageDeduplicationId: true, messageDeduplicationId: entry.messageDeduplicationId }
        : {}),
    })),
  }).finish();
}

export function decodeSendArgs(bytes: Uint8Array): SendArgs {
  const wire = ops.SendArgs.decode(bytes);
  return {
    queue: wire.queue,
    senderId: wire.senderId,
    messageIds: wire.messageIds,
    idempotencyKey: wire.idempotencyKey,
    entries: wire.entries.map((entry): SendEntry => ({
      entryId: entry.entryId ?? '',
      body: entry.body ?? '',
      ...(entry.hasDelaySeconds === true ? { delaySeconds: entry.delaySeconds ?? 0 } : {}),
      messageAttributes: attributesFromWire(entry.messageAttributes),
      systemAttributes: attributesFromWire(entry.systemAttributes),
      ...(entry.hasMessageGroupId === true ? { messageGroupId: entry.messageGroupId ?? '' } : {}),
      ...(entry.hasMessageDeduplicationId === true
        ? { messageDeduplicationId: entry.messageDeduplicationId ?? '' }
        : {}),
    })),
  };
}

export function encodeSendResult(outcomes: readonly SendOutcome[]): Uint8Array {
  return ops.SendResult.encode({
    outcomes: outcomes.map((outcome) =>
      isFailure(outcome)
        ? { entryId: outcome.entryId, error: errorToWire(outcome.error) }
        : {
            entryId: outcome.entryId,
            messageId: outcome.messageId,
            ...(outcome.sequenceNumber !== undefined
              ? { hasSequenceNumber: true, sequenceNumber: outcome.sequenceNumber }
              : {}),
          },
    ),
  }).finish();
}

export function decodeSendResult(bytes: Uint8Array): SendOutcome[] {
  return ops.SendResult.decode(bytes).outcomes.map((outcome): SendOutcome => {
    const entryId = outcome.entryId ?? '';
    if (outcome.error !== null && outcome.error !== undefined) return { entryId, error: errorFromWire(outcome.error) };
    return {
      entryId,
      messageId: outcome.messageId ?? '',
      ...(outcome.hasSequenceNumber === true ? { sequenceNumber: outcome.sequenceNumber ?? '' } : {}),
    };
  });
}

// ---- ReceiveMessage --------------------------------------------------------------------------

export function encodeReceiveArgs(args: ReceiveArgs): Uint8Array {
  return ops.ReceiveArgs.encode({
    queue: args.queue,
    maxMessages: args.maxMessages,
    ...(args.visibilityTimeoutSeconds !== undefined
      ? { hasVisibilityTimeoutSeconds: true, visibilityTimeoutSeconds: args.visibilityTimeoutSeconds }
      : {}),
    ...(args.waitTimeSeconds !== undefined ? { hasWaitTimeSeconds: true, waitTimeSeconds: args.waitTimeSeconds } : {}),
    ...(args.receiveRequestAttemptId !== undefined
      ? { hasReceiveRequestAttemptId: true, receiveRequestAttemptId: args.receiveRequestAttemptId }
      : {}),
  }).finish();
}

export function decodeReceiveArgs(bytes: Uint8Array): ReceiveArgs {
  const wire = ops.ReceiveArgs.decode(bytes);
  return {
    queue: wire.queue,
    maxMessages: wire.maxMessages,
    ...(wire.hasVisibilityTimeoutSeconds ? { visibilityTimeoutSeconds: wire.visibilityTimeoutSeconds } : {}),
    ...(wire.hasWaitTimeSeconds ? { waitTimeSeconds: wire.waitTimeSeconds } : {}),
    ...(wire.hasReceiveRequestAttemptId ? { receiveRequestAttemptId: wire.receiveRequestAttemptId } : {}),
  };
}

export function encodeReceiveResult(messages: readonly ReceivedMessage[]): Uint8Array {
  return ops.ReceiveResult.encode({
    messages: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: message.body,
      messageAttributes: attributesToWire(message.messageAttributes),
      systemAttributes: attributesToWire(message.systemAttributes),
      attributes: { ...message.attributes },
    })),
  }).finish();
}

export function decodeReceiveResult(bytes: Uint8Array): ReceivedMessage[] {
  return ops.ReceiveResult.decode(bytes).messages.map((message): ReceivedMessage => ({
    messageId: message.messageId ?? '',
    receiptHandle: message.receiptHandle ?? '',
    body: message.body ?? '',
    messageAttributes: attributesFromWire(message.messageAttributes),
    systemAttributes: attributesFromWire(message.systemAttributes),
    attributes: { ...(message.attributes ?? {}) },
  }));
}

// ---- DeleteMessage(Batch), ChangeMessageVisibility(Batch) -----------------------------------

export function encodeHandleArgs(args: HandleArgs<DeleteEntry | ChangeVisibilityEntry>): Uint8Array {
  return ops.HandleArgs.encode({
    queue: args.queue,
    entries: args.entries.map((entry) => ({
      entryId: entry.entryId,
      receiptHandle: entry.receiptHandle,
      visibilityTimeoutSeconds: 'visibilityTimeoutSeconds' in entry ? entry.visibilityTimeoutSeconds : 0,
    })),
  }).finish();
}

export function decodeDeleteArgs(bytes: Uint8Array): HandleArgs<DeleteEntry> {
  const wire = ops.HandleArgs.decode(bytes);
  return {
    queue: wire.queue,
    entries: wire.entries.map((entry) => ({ entryId: entry.entryId ?? '', receiptHandle: entry.receiptHandle ?? '' })),
  };
}

export function decodeChangeVisibilityArgs(bytes: Uint8Array): HandleArgs<ChangeVisibilityEntry> {
  const wire = ops.HandleArgs.decode(bytes);
  return {
    queue: wire.queue,
    entries: wire.entries.map((entry) => ({
      entryId: entry.entryId ?? '',
      receiptHandle: entry.receiptHandle ?? '',
      visibilityTimeoutSeconds: entry.visibilityTimeoutSeconds ?? 0,
    })),
  };
}

export function encodeHandleResult(outcomes: readonly HandleOutcome[]): Uint8Array {
  return ops.HandleResult.encode({
    outcomes: outcomes.map((outcome) =>
      isFailure(outcome)
        ? { entryId: outcome.entryId, error: errorToWire(outcome.error) }
        : { entryId: outcome.entryId },
    ),
  }).finish();
}

export function decodeHandleResult(bytes: Uint8Array): HandleOutcome[] {
  return ops.HandleResult.decode(bytes).outcomes.map((outcome): HandleOutcome => {
    const entryId = outcome.entryId ?? '';
    return outcome.error !== null && outcome.error !== undefined
      ? { entryId, error: errorFromWire(outcome.error) }
      : { entryId };
  });
}
