/**
 * The settable attributes of a queue, parsed. Meta stores the canonical AWS strings (what
 * GetQueueAttributes returns); this is the typed view every operation works from.
 */
import { sqsLimits } from '../base/limits.js';
import { InvalidAttributeNameError, InvalidAttributeValueError } from './errors.js';
import { parseRedriveAllowPolicy, parseRedrivePolicy, type RedriveAllowPolicy, type RedrivePolicy } from './redrive-policy.js';

export type DeduplicationScope = 'queue' | 'messageGroup';
export type FifoThroughputLimit = 'perQueue' | 'perMessageGroupId';

export interface QueueConfig {
  readonly delaySeconds: number;
  readonly maximumMessageSizeBytes: number;
  readonly messageRetentionSeconds: number;
  readonly receiveWaitTimeSeconds: number;
  readonly visibilityTimeoutSeconds: number;
  readonly redrivePolicy?: RedrivePolicy;
  readonly redriveAllowPolicy?: RedriveAllowPolicy;
  readonly isFifo: boolean;
  readonly isContentBasedDeduplication: boolean;
  readonly deduplicationScope: DeduplicationScope;
  readonly fifoThroughputLimit: FifoThroughputLimit;
}

interface IntegerRule {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

const integerRules: Readonly<Record<string, IntegerRule>> = {
  DelaySeconds: { min: 0, max: sqsLimits.delaySecondsMax.value, default: 0 },
  MaximumMessageSize: { min: sqsLimits.messageSizeBytesMin.value, max: sqsLimits.messageSizeBytesMax.value, default: sqsLimits.messageSizeBytesMax.value },
  MessageRetentionPeriod: { min: sqsLimits.retentionSecondsMin.value, max: sqsLimits.retentionSecondsMax.value, default: sqsLimits.retentionSecondsDefault.value },
  ReceiveMessageWaitTimeSeconds: { min: 0, max: sqsLimits.receiveWaitSecondsMax.value, default: 0 },
  VisibilityTimeout: { min: 0, max: sqsLimits.visibilityTimeoutSecondsMax.value, default: sqsLimits.visibilityTimeoutSecondsDefault.value },
  KmsDataKeyReusePeriodSeconds: { min: 60, max: 86_400, default: 300 },
};

const booleanAttributes = new Set(['SqsManagedSseEnabled', 'ContentBasedDeduplication', 'FifoQueue']);
const fifoOnlyAttributes = new Set(['ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit']);
const freeTextAttributes = new Set(['KmsMasterKeyId']);

/** Attributes GetQueueAttributes computes; SetQueueAttributes and CreateQueue refuse them. */
export const readOnlyAttributeNames = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
] as const;

/** Settable attributes in the order GetQueueAttributes(All) lists them. */
export const settableAttributeNames = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'Policy',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

const settable = new Set<string>(settableAttributeNames);
const readOnly = new Set<string>(readOnlyAttributeNames);

export function isKnownAttributeName(name: string): boolean {
  return settable.has(name) || readOnly.has(name);
}

/** The attributes a new queue has before the request's own are applied. */
export function defaultAttributes(options: { isFifo: boolean }): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, rule] of Object.entries(integerRules)) {
    if (name !== 'KmsDataKeyReusePeriodSeconds') attributes[name] = String(rule.default);
  }
  attributes['SqsManagedSseEnabled'] = 'true';
  if (options.isFifo) {
    attributes['FifoQueue'] = 'true';
    attributes['ContentBasedDeduplication'] = 'false';
    attributes['DeduplicationScope'] = 'queue';
    attributes['FifoThroughputLimit'] = 'perQueue';
  }
  return attributes;
}

/**
 * Validates one attribute against the rules that need no other queue's state, and returns its
 * canonical string, or '' to remove it (RedrivePolicy, Policy, …).
 * `phase` says whether the queue is being created (FifoQueue may be given only then).
 */
export function canonicalAttributeValue(name: string, value: string, options: { isFifo: boolean; phase: 'create' | 'set' }): string {
  if (readOnly.has(name)) throw new InvalidAttributeNameError(name, 'the attribute is read-only');
  if (!settable.has(name)) throw new InvalidAttributeNameError(name, 'unknown attribute');
  if (fifoOnlyAttributes.has(name) && !options.isFifo) throw new InvalidAttributeNameError(name, 'only FIFO queues have this attribute');
  if (name === 'FifoQueue' && options.phase === 'set') {
    // AWS: a standard queue has no such attribute; a FIFO queue takes `true` (no change) and
    // refuses anything else in these words.
    if (!options.isFifo) throw new InvalidAttributeNameError(name, 'a standard queue has no FifoQueue attribute');
    if (value !== 'true') {
      throw new InvalidAttributeValueError(name, value, 'the queue type is fixed at creation', { message: 'Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.' });
    }
    return 'true';
  }
  const rule = integerRules[name];
  if (rule !== undefined) {
    if (!/^-?\d{1,12}$/.test(value.trim())) throw new InvalidAttributeValueError(name, value, 'must be an integer');
    const parsed = Number(value.trim());
    if (parsed < rule.min || parsed > rule.max) {
      throw new InvalidAttributeValueError(name, value, `must be between ${rule.min} and ${rule.max}`);
    }
    return String(parsed);
  }
  if (booleanAttributes.has(name)) {
    const lower = value.trim().toLowerCase();
    if (lower !== 'true' && lower !== 'false') throw new InvalidAttributeValueError(name, value, 'must be true or false');
    return lower;
  }
  if (freeTextAttributes.has(name)) return value;
  switch (name) {
    case 'DeduplicationScope':
      if (value !== 'queue' && value !== 'messageGroup') throw new InvalidAttributeValueError(name, value, 'must be queue or messageGroup');
      return value;
    case 'FifoThroughputLimit':
      if (value !== 'perQueue' && value !== 'perMessageGroupId') {
        throw new InvalidAttributeValueError(name, value, 'must be perQueue or perMessageGroupId');
      }
      return value;
    case 'Policy':
      if (value === '') return '';
      try {
        const parsed: unknown = JSON.parse(value);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      } catch (cause) {
        throw new InvalidAttributeValueError(name, value, 'must be a JSON policy document', { cause });
      }
      return value;
    case 'RedrivePolicy':
      return value === '' ? '' : JSON.stringify(parseRedrivePolicy(value));
    case 'RedriveAllowPolicy':
      return value === '' ? '' : JSON.stringify(parseRedriveAllowPolicy(value));
    default:
      throw new InvalidAttributeNameError(name, 'unknown attribute');
  }
}

/**
 * Applies `changes` (already canonical) to `current` and checks the combinations that only make
 * sense together. Removal is an empty string.
 */
export function mergeAttributes(current: Readonly<Record<string, string>>, changes: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = { ...current };
  for (const [name, value] of Object.entries(changes)) {
    if (value === '') delete merged[name];
    else merged[name] = value;
  }
  if (merged['FifoThroughputLimit'] === 'perMessageGroupId' && merged['DeduplicationScope'] !== 'messageGroup') {
    throw new InvalidAttributeValueError(
      'FifoThroughputLimit',
      'perMessageGroupId',
      'perMessageGroupId requires DeduplicationScope=messageGroup',
    );
  }
  if (merged['KmsMasterKeyId'] !== undefined && merged['SqsManagedSseEnabled'] === 'true' && changes['SqsManagedSseEnabled'] === 'true') {
    throw new InvalidAttributeValueError('SqsManagedSseEnabled', 'true', 'a queue cannot use SSE-SQS and SSE-KMS together');
  }
  if (changes['KmsMasterKeyId'] !== undefined && changes['KmsMasterKeyId'] !== '' && changes['SqsManagedSseEnabled'] === undefined) {
    merged['SqsManagedSseEnabled'] = 'false';
  }
  return merged;
}

function integerOf(attributes: Readonly<Record<string, string>>, name: string): number {
  const rule = integerRules[name];
  const raw = attributes[name];
  return raw === undefined ? (rule?.default ?? 0) : Number(raw);
}

export function parseQueueConfig(attributes: Readonly<Record<string, string>>): QueueConfig {
  const redrive = attributes['RedrivePolicy'];
  const allow = attributes['RedriveAllowPolicy'];
  return {
    delaySeconds: integerOf(attributes, 'DelaySeconds'),
    maximumMessageSizeBytes: integerOf(attributes, 'MaximumMessageSize'),
    messageRetentionSeconds: integerOf(attributes, 'MessageRetentionPeriod'),
    receiveWaitTimeSeconds: integerOf(attributes, 'ReceiveMessageWaitTimeSeconds'),
    visibilityTimeoutSeconds: integerOf(attributes, 'VisibilityTimeout'),
    ...(redrive !== undefined ? { redrivePolicy: parseRedrivePolicy(redrive) } : {}),
    ...(allow !== undefined ? { redriveAllowPolicy: parseRedriveAllowPolicy(allow) } : {}),
    isFifo: attributes['FifoQueue'] === 'true',
    isContentBasedDeduplication: attributes['ContentBasedDeduplication'] === 'true',
    deduplicationScope: attributes['DeduplicationScope'] === 'messageGroup' ? 'messageGroup' : 'queue',
    fifoThroughputLimit: attributes['FifoThroughputLimit'] === 'perMessageGroupId' ? 'perMessageGroupId' : 'perQueue',
  };
}
