/**
 * consume()'s options and the policy they resolve to. Every bound is checked here, when the
 * options are given, never at first use.
 *
 * Zero values are safe or refused, never inert. The visibility timeout is REFUSED at zero: it has
 * two opposite readings ("redeliver at once" and "never redeliver"), one of which silently breaks
 * the guarantee. The retry delay's zero has one harmless reading (no extra delay), and so does the
 * growth ceiling's (a constant delay): both are clamped. The other ambiguous number, maximum
 * deliveries, is the queue's RedrivePolicy maxReceiveCount, which SQS never lets be zero; a queue
 * without a RedrivePolicy (unlimited deliveries) is refused when consume() starts.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { raftqLimits, sqsLimits } from '../base/limits.js';
import type { Delivery } from './delivery.js';
import { ClientOptionsError } from './errors.js';

export type Handler = (delivery: Delivery) => Promise<void> | void;

export type ConsumerErrorStage = 'handler' | 'receive' | 'lease' | 'acknowledge' | 'retry' | 'dead-letter' | 'release';

export interface ConsumerErrorContext {
  readonly stage: ConsumerErrorStage;
  readonly messageId?: string;
  readonly receiveCount?: number;
}

export interface ConsumeOptions {
  readonly queueUrl: string;
  readonly handler: Handler;
  /**
   * Must be `true`: you assert that running the handler twice on one message is harmless, because
   * delivery is at least once. Its absence is refused, so `grep -rn handlerIsIdempotent` lists
   * every place somebody made that promise.
   */
  readonly handlerIsIdempotent: true;
  /** Aborting stops the consumer: no more receives, running handlers get gracePeriodMs to finish. */
  readonly signal: AbortSignal;
  /** Defaults to `new SQSClient({})`, configured from the environment (AWS_REGION, AWS_ENDPOINT_URL, …). */
  readonly client?: SQSClient;
  /** Messages handled at once: 1 to consumerParallelismMax; 0 or absent means 1. */
  readonly parallelism?: number;
  /**
   * How long a received message stays invisible to other consumers between lease extensions,
   * 1 to 43,200. Absent: the queue's VisibilityTimeout (refused at start if that is 0). 0 is refused.
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Wait after a failure before the message is delivered again. 0 or absent: none. Rounded up to seconds. */
  readonly retryDelayMs?: number;
  /** Set it to make the delay grow: retryDelayMs after the first failure, doubling, never above this. */
  readonly retryDelayMsMax?: number;
  /** How long a stopping consumer waits for running handlers. Absent: consumerGracePeriodMsDefault. */
  readonly gracePeriodMs?: number;
  /** Told of every failure the consumer absorbs (handler errors included); never of the one it rejects with. */
  readonly onError?: (error: unknown, context: ConsumerErrorContext) => void;
}

export interface ConsumerPolicy {
  readonly queueUrl: string;
  readonly handler: Handler;
  readonly signal: AbortSignal;
  readonly client?: SQSClient;
  readonly parallelism: number;
  /** undefined: take the queue's when the consumer starts. */
  readonly visibilityTimeoutSeconds?: number;
  readonly retryDelayMs: number;
  /** undefined: the delay is constant. */
  readonly retryDelayMsMax?: number;
  readonly gracePeriodMs: number;
  readonly onError: (error: unknown, context: ConsumerErrorContext) => void;
}

/** Longest retry delay: the visibility timeout it is applied as cannot exceed 12 hours. */
const retryDelayMsMax = sqsLimits.visibilityTimeoutSecondsMax.value * 1000;

export function resolveConsumerOptions(options: ConsumeOptions): ConsumerPolicy {
  if (typeof options !== 'object' || options === null)
    throw new ClientOptionsError('options', options, 'consume() needs an options object');
  if ((options.handlerIsIdempotent as unknown) !== true) {
    throw new ClientOptionsError(
      'handlerIsIdempotent',
      options.handlerIsIdempotent,
      'it must be true: delivery is at least once, so every handler must be safe to run twice on one message, and saying so is required',
    );
  }
  if (typeof options.handler !== 'function')
    throw new ClientOptionsError('handler', options.handler, 'it must be a function');
  if (typeof options.queueUrl !== 'string' || options.queueUrl === '')
    throw new ClientOptionsError('queueUrl', options.queueUrl, 'it must be a queue URL');
  if (!(options.signal instanceof AbortSignal)) {
    throw new ClientOptionsError(
      'signal',
      options.signal,
      'an AbortSignal is required: it is the only way to stop the consumer',
    );
  }
  const parallelism = options.parallelism === undefined || options.parallelism === 0 ? 1 : options.parallelism;
  checkInteger('parallelism', parallelism, 1, raftqLimits.consumerParallelismMax.value);
  if (options.visibilityTimeoutSeconds !== undefined) {
    if (options.visibilityTimeoutSeconds === 0) {
      throw new ClientOptionsError(
        'visibilityTimeoutSeconds',
        0,
        'zero reads both as "redeliver at once" and as "never redeliver"; give the time your slowest handler needs between lease extensions, or leave it out to use the queue\'s',
      );
    }
    checkInteger(
      'visibilityTimeoutSeconds',
      options.visibilityTimeoutSeconds,
      1,
      sqsLimits.visibilityTimeoutSecondsMax.value,
    );
  }
  const retryDelay = options.retryDelayMs ?? 0;
  checkNumber('retryDelayMs', retryDelay, 0, retryDelayMsMax);
  const ceiling =
    options.retryDelayMsMax === undefined || options.retryDelayMsMax === 0 ? undefined : options.retryDelayMsMax;
  if (ceiling !== undefined) {
    checkNumber('retryDelayMsMax', ceiling, 0, retryDelayMsMax);
    if (retryDelay === 0)
      throw new ClientOptionsError(
        'retryDelayMsMax',
        ceiling,
        'a growing delay needs a retryDelayMs above 0 to grow from',
      );
    if (ceiling < retryDelay)
      throw new ClientOptionsError('retryDelayMsMax', ceiling, `it must be at least retryDelayMs (${retryDelay})`);
  }
  const gracePeriodMs = options.gracePeriodMs ?? raftqLimits.consumerGracePeriodMsDefault.value;
  checkNumber('gracePeriodMs', gracePeriodMs, 0, raftqLimits.consumerGracePeriodMsMax.value);
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new ClientOptionsError('onError', options.onError, 'it must be a function');
  return {
    queueUrl: options.queueUrl,
    handler: options.handler,
    signal: options.signal,
    ...(options.client !== undefined ? { client: options.client } : {}),
    parallelism,
    ...(options.visibilityTimeoutSeconds !== undefined
      ? { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }
      : {}),
    retryDelayMs: retryDelay,
    ...(ceiling !== undefined ? { retryDelayMsMax: ceiling } : {}),
    gracePeriodMs,
    onError: options.onError ?? (() => {}),
  };
}

export function checkInteger(option: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ClientOptionsError(option, value, `it must be a whole number from ${min} to ${max}`);
  }
}

export function checkNumber(option: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ClientOptionsError(option, value, `it must be a number from ${min} to ${max}`);
  }
}
