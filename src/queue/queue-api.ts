/**
 * The types QueueService speaks in. They carry SQS concepts but no HTTP or AWS wire detail: the
 * gateway turns requests into these and these into responses.
 */
import type { RaftqError } from '../base/errors.js';

export interface MessageAttributeValue {
  /** "String", "Number", "Binary", optionally with a custom suffix ("Number.float"). */
  readonly dataType: string;
  readonly stringValue?: string;
  readonly binaryValue?: Uint8Array;
}

export type MessageAttributes = Readonly<Record<string, MessageAttributeValue>>;

export interface SendEntry {
  readonly entryId: string;
  readonly body: string;
  readonly delaySeconds?: number;
  readonly messageAttributes: MessageAttributes;
  /** Message system attributes (AWSTraceHeader). */
  readonly systemAttributes: MessageAttributes;
  readonly messageGroupId?: string;
  readonly messageDeduplicationId?: string;
}

/** Who sends, and what keeps a send that may run again (forwarded after a lost answer) from sending twice. */
export interface SendContext {
  /** SenderId of the messages. */
  readonly senderId: string;
  /** One per entry, in order, chosen before the first run; absent: the service mints them. */
  readonly messageIds?: readonly string[];
  /** Names the send across runs: its txn ids derive from it (send-messages.ts). Unique per send. */
  readonly idempotencyKey?: string;
}

export interface SendResult {
  readonly entryId: string;
  readonly messageId: string;
  /** FIFO only: a decimal string of up to 128 bits. */
  readonly sequenceNumber?: string;
}

export interface EntryFailure {
  readonly entryId: string;
  readonly error: RaftqError;
}

export interface ReceiveOptions {
  /** 1..10. */
  readonly maxMessages: number;
  /** Overrides the queue's VisibilityTimeout for these messages. */
  readonly visibilityTimeoutSeconds?: number;
  /** Overrides the queue's ReceiveMessageWaitTimeSeconds. 0 is a short poll. */
  readonly waitTimeSeconds?: number;
  /** FIFO only: a retry with the same id within 5 minutes returns the same messages. */
  readonly receiveRequestAttemptId?: string;
  /** Aborting ends a long poll with an empty result (client gone, node shutting down). */
  readonly signal?: AbortSignal;
}

export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  readonly messageAttributes: MessageAttributes;
  readonly systemAttributes: MessageAttributes;
  /**
   * SentTimestamp, ApproximateReceiveCount, ApproximateFirstReceiveTimestamp, SenderId and, when
   * they apply, MessageGroupId, SequenceNumber, MessageDeduplicationId, DeadLetterQueueSourceArn,
   * AWSTraceHeader. The gateway filters them by the request's attribute names.
   */
  readonly attributes: Readonly<Record<string, string>>;
}

export interface DeleteEntry {
  readonly entryId: string;
  readonly receiptHandle: string;
}

export interface ChangeVisibilityEntry {
  readonly entryId: string;
  readonly receiptHandle: string;
  readonly visibilityTimeoutSeconds: number;
}

export interface EntrySuccess {
  readonly entryId: string;
}

export interface ListQueuesOptions {
  readonly prefix?: string;
  readonly maxResults?: number;
  readonly nextToken?: string;
}

export interface QueueNamePage {
  readonly names: string[];
  readonly nextToken?: string;
}

export interface PermissionGrant {
  readonly label: string;
  readonly accountIds: readonly string[];
  readonly actions: readonly string[];
}

export interface StartMoveTaskOptions {
  readonly sourceArn: string;
  /** Omitted: each message goes back to the queue it was dead-lettered from. */
  readonly destinationArn?: string;
  readonly maxNumberOfMessagesPerSecond?: number;
}

export type MoveTaskStatus = 'RUNNING' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED' | 'FAILED';

export interface MoveTaskInfo {
  readonly taskHandle: string;
  readonly status: MoveTaskStatus;
  readonly sourceArn: string;
  readonly destinationArn?: string;
  readonly maxNumberOfMessagesPerSecond?: number;
  readonly approximateNumberOfMessagesMoved: number;
  readonly approximateNumberOfMessagesToMove?: number;
  readonly failureReason?: string;
  readonly startedTimestampMs: number;
}

/**
 * Timers for long polling and move tasks. The runtime implements it over real timers; tests and
 * the simulator over a manual clock. `fn` runs at most once; the returned function cancels it.
 */
export interface QueueScheduler {
  setTimerMs(delayMs: number, fn: () => void): () => void;
}

/** The subset of a pino logger the queue layer uses (injected: src/queue does no I/O). */
export interface QueueLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}
