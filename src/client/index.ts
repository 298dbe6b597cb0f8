/**
 * raftq/client: consumers and producers for SQS queues with honest at-least-once semantics. It
 * speaks only the SQS API through @aws-sdk/client-sqs, so it works unchanged against AWS SQS and
 * against raftq; on raftq, dead-lettering with a cause is one atomic transaction (an extension
 * action), and on AWS it falls back to copy-then-delete. README.md, "Client library", shows it.
 */
export { consume } from './consume.js';
export type { ConsumeOptions, ConsumerErrorContext, ConsumerErrorStage, Handler } from './consumer-options.js';
export type { Delivery, Lease, ReceivedMessage } from './delivery.js';
export { doNotRetry, isNotRetryable, NotRetryableError } from './do-not-retry.js';
export { LeaseLostError } from './lease-keeper.js';
export {
  ClientOptionsError,
  DeadLetterNotFoundError,
  DeadLetterQueueMissingError,
  ProducerClosedError,
  ProducerSendError,
  QueueFailedError,
} from './errors.js';
export type { DeadLetterCause } from '../base/dead-letter-cause.js';
export { deadLetterCauseAttributeName } from '../base/dead-letter-cause.js';
export { deadLetters } from './dead-letters.js';
export type { DeadLetter, DeadLettersOptions } from './dead-letters.js';
export { replayDeadLetter } from './replay-dead-letter.js';
export type { DeadLetterTarget } from './replay-dead-letter.js';
export { deleteDeadLetter } from './delete-dead-letter.js';
export { createProducer } from './producer.js';
export type { Producer, ProducerMessage, ProducerOptions, SentMessage } from './producer.js';
