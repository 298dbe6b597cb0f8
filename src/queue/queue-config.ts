/**
 * The settable attributes of a queue, parsed. Meta stores the canonical AWS strings (what
 * GetQueueAttributes returns); this is the typed view every operation works from. Which
 * attributes exist and what each allows is the table in queue-attributes.ts; this file applies it.
 */
import { assertNever } from '../base/assert.js';
import { InvalidAttributeNameError, InvalidAttributeValueError } from './errors.js';
import { queueAttributeSpec, queueAttributeTable, type AttributeValueRule } from './queue-attributes.js';
import type { RedriveAllowPolicy, RedrivePolicy } from './redrive-policy.js';

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

export function isKnownAttributeName(name: string): boolean {
  return queueAttributeSpec(name) !== undefined;
}

/** The attributes a new queue has before the request's own are applied. */
export function defaultAttributes(options: { isFifo: boolean }): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const spec of queueAttributeTable) {
    if (spec.access !== 'readOnly' && spec.default !== undefined && (spec.default.queues === 'all' || options.isFifo))
      attributes[spec.name] = spec.default.value;
  }
  return attributes;
}

/**
 * Validates one attribute against the rules that need no other queue's state, and returns its
 * canonical string, or '' to remove it (RedrivePolicy, Policy, …).
 * `phase` says whether the queue is being created (FifoQueue may be given only then).
 */
export function canonicalAttributeValue(
  name: string,
  value: string,
  options: { isFifo: boolean; phase: 'create' | 'set' },
): string {
  const spec = queueAttributeSpec(name);
  if (spec?.access === 'readOnly') throw new InvalidAttributeNameError(name, 'the attribute is read-only');
  if (spec === undefined) throw new InvalidAttributeNameError(name, 'unknown attribute');
  if (spec.isFifoOnly === true && !options.isFifo)
    throw new InvalidAttributeNameError(name, 'only FIFO queues have this attribute');
  if (spec.access === 'createOnly' && options.phase === 'set') {
    // FifoQueue, the one create-only attribute. AWS: a standard queue has no such attribute; a
    // FIFO queue takes `true` (no change) and refuses anything else in these words.
    if (!options.isFifo) throw new InvalidAttributeNameError(name, 'a standard queue has no FifoQueue attribute');
    if (value !== 'true') {
      throw new InvalidAttributeValueError(name, value, 'the queue type is fixed at creation', {
        message: `Invalid value for the parameter ${name}. Reason: Modifying queue type is not supported.`,
      });
    }
    return 'true';
  }
  return canonicalValue(name, value, spec.value);
}

function canonicalValue(name: string, value: string, rule: AttributeValueRule): string {
  switch (rule.kind) {
    case 'integer': {
      if (!/^-?\d{1,12}$/.test(value.trim())) throw new InvalidAttributeValueError(name, value, 'must be an integer');
      const parsed = Number(value.trim());
      if (parsed < rule.min || parsed > rule.max)
        throw new InvalidAttributeValueError(name, value, `must be between ${rule.min} and ${rule.max}`);
      return String(parsed);
    }
    case 'boolean': {
      const lower = value.trim().toLowerCase();
      if (lower !== 'true' && lower !== 'false')
        throw new InvalidAttributeValueError(name, value, 'must be true or false');
      return lower;
    }
    case 'enum':
      if (!rule.values.includes(value))
        throw new InvalidAttributeValueError(name, value, `must be ${rule.values.join(' or ')}`);
      return value;
    case 'text':
      return value;
    case 'document': {
      if (value === '') return '';
      const parsed = rule.parse(value);
      return rule.isStoredAsGiven === true ? value : JSON.stringify(parsed);
    }
    default:
      return assertNever(rule, 'queue attribute value rule');
  }
}

/**
 * Applies `changes` (already canonical) to `current` and checks the combinations that only make
 * sense together. Removal is an empty string.
 */
export function mergeAttributes(
  current: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string>>,
): Record<string, string> {
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
  if (
    merged['KmsMasterKeyId'] !== undefined &&
    merged['SqsManagedSseEnabled'] === 'true' &&
    changes['SqsManagedSseEnabled'] === 'true'
  ) {
    throw new InvalidAttributeValueError(
      'SqsManagedSseEnabled',
      'true',
      'a queue cannot use SSE-SQS and SSE-KMS together',
    );
  }
  if (
    changes['KmsMasterKeyId'] !== undefined &&
    changes['KmsMasterKeyId'] !== '' &&
    changes['SqsManagedSseEnabled'] === undefined
  ) {
    merged['SqsManagedSseEnabled'] = 'false';
  }
  return merged;
}

/** The typed view of a queue's stored attributes: each bound attribute's field, defaulted by its row. */
export function parseQueueConfig(attributes: Readonly<Record<string, string>>): QueueConfig {
  const config: Partial<Record<keyof QueueConfig, unknown>> = {};
  for (const spec of queueAttributeTable) {
    if (spec.access === 'readOnly' || spec.config === undefined) continue;
    const value = spec.config.parse(attributes[spec.name]);
    if (value !== undefined) config[spec.config.field] = value;
  }
  return config as QueueConfig;
}
