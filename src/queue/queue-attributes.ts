/**
 * Every queue attribute, one row each, in the order GetQueueAttributes(All) lists them. A row says
 * who may give the attribute (`access`), whether only FIFO queues have it, what a new queue stores
 * when the request does not give it, how a given value is checked and made canonical (`value`),
 * which field of the typed QueueConfig it becomes (`config`), and, for the attributes
 * GetQueueAttributes computes, how it is rendered. queue-config.ts walks this table for validation,
 * defaults and parsing; queue-attribute-ops.ts for listing: adding an attribute is adding a row.
 */
import { sqsLimits } from '../base/limits.js';
import { InvalidAttributeValueError } from './errors.js';
import type { QueueConfig } from './queue-config.js';
import { parseRedriveAllowPolicy, parseRedrivePolicy } from './redrive-policy.js';

/** How a given value is checked and made canonical (the string stored and returned). */
export type AttributeValueRule =
  /** A decimal integer in [min, max], spaces around it allowed; canonical without them or leading zeros. */
  | { readonly kind: 'integer'; readonly min: number; readonly max: number }
  /** true or false in any case and with spaces; canonical lower case. */
  | { readonly kind: 'boolean' }
  /** One of `values`, exactly. */
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Any string, stored as given. */
  | { readonly kind: 'text' }
  /**
   * A JSON document checked by `parse` (which throws InvalidAttributeValueError); canonical as
   * `parse` re-serialised, or as given when `isStoredAsGiven`. '' removes it.
   */
  | { readonly kind: 'document'; readonly parse: (text: string) => unknown; readonly isStoredAsGiven?: boolean };

/** What GetQueueAttributes renders the read-only attributes from. */
export interface QueueFacts {
  readonly createdAtMs: number;
  readonly lastModifiedAtMs: number;
  readonly queueArn: string;
  /** Present when a requested attribute needs them (`needsCounts`). */
  readonly counts?: { readonly visible: number; readonly inFlight: number; readonly delayed: number };
}

/**
 * The QueueConfig field an attribute becomes, and how: `parse` gets the stored canonical string,
 * or undefined when the queue has none (it then returns the field's default, or undefined for an
 * optional field, which is left out).
 */
export type ConfigBinding = {
  readonly [K in keyof QueueConfig]-?: {
    readonly field: K;
    readonly parse: (canonical: string | undefined) => QueueConfig[K];
  };
}[keyof QueueConfig];

/** An attribute a request gives and the meta row stores. */
export interface StoredAttributeSpec {
  readonly name: string;
  /**
   * settable: CreateQueue and SetQueueAttributes. createOnly: fixed by CreateQueue;
   * SetQueueAttributes refuses any change (queue-config.ts says how, in AWS's words).
   */
  readonly access: 'settable' | 'createOnly';
  /** Only FIFO queues have it: naming it for a standard queue is an unknown attribute. */
  readonly isFifoOnly?: boolean;
  /** Stored at creation when the request does not give it; `fifo`: by FIFO queues only. */
  readonly default?: { readonly value: string; readonly queues: 'all' | 'fifo' };
  readonly value: AttributeValueRule;
  readonly config?: ConfigBinding;
}

/** An attribute GetQueueAttributes computes: never given, never stored. */
export interface ComputedAttributeSpec {
  readonly name: string;
  /** CreateQueue and SetQueueAttributes refuse it as an unknown attribute, as AWS does. */
  readonly access: 'readOnly';
  readonly render: (facts: QueueFacts) => string | undefined;
  /** Rendering it needs the message counts (a bounded scan): read only when asked for. */
  readonly needsCounts?: boolean;
}

export type QueueAttributeSpec = StoredAttributeSpec | ComputedAttributeSpec;

function integer(min: number, max: number): AttributeValueRule {
  return { kind: 'integer', min, max };
}

/** An integer field: the stored canonical decimal, or `defaultValue` when the queue has none. */
function integerOr(defaultValue: number): (canonical: string | undefined) => number {
  return (canonical) => (canonical === undefined ? defaultValue : Number(canonical));
}

const allQueues = (value: number | string) => ({ value: String(value), queues: 'all' as const });
const fifoQueues = (value: string) => ({ value, queues: 'fifo' as const });

const delayDefault = 0;
const sizeDefault = sqsLimits.messageSizeBytesMax.value;
const retentionDefault = sqsLimits.retentionSecondsDefault.value;
const waitDefault = 0;
const visibilityDefault = sqsLimits.visibilityTimeoutSecondsDefault.value;

export const queueAttributeTable: readonly QueueAttributeSpec[] = [
  {
    name: 'DelaySeconds',
    access: 'settable',
    default: allQueues(delayDefault),
    value: integer(0, sqsLimits.delaySecondsMax.value),
    config: { field: 'delaySeconds', parse: integerOr(delayDefault) },
  },
  {
    name: 'MaximumMessageSize',
    access: 'settable',
    default: allQueues(sizeDefault),
    value: integer(sqsLimits.messageSizeBytesMin.value, sqsLimits.messageSizeBytesMax.value),
    config: { field: 'maximumMessageSizeBytes', parse: integerOr(sizeDefault) },
  },
  {
    name: 'MessageRetentionPeriod',
    access: 'settable',
    default: allQueues(retentionDefault),
    value: integer(sqsLimits.retentionSecondsMin.value, sqsLimits.retentionSecondsMax.value),
    config: { field: 'messageRetentionSeconds', parse: integerOr(retentionDefault) },
  },
  {
    name: 'ReceiveMessageWaitTimeSeconds',
    access: 'settable',
    default: allQueues(waitDefault),
    value: integer(0, sqsLimits.receiveWaitSecondsMax.value),
    config: { field: 'receiveWaitTimeSeconds', parse: integerOr(waitDefault) },
  },
  {
    name: 'VisibilityTimeout',
    access: 'settable',
    default: allQueues(visibilityDefault),
    value: integer(0, sqsLimits.visibilityTimeoutSecondsMax.value),
    config: { field: 'visibilityTimeoutSeconds', parse: integerOr(visibilityDefault) },
  },
  // Stored as given: AddPermission and RemovePermission edit it, and AWS returns it unchanged.
  {
    name: 'Policy',
    access: 'settable',
    value: { kind: 'document', parse: parsePolicyDocument, isStoredAsGiven: true },
  },
  {
    name: 'RedrivePolicy',
    access: 'settable',
    value: { kind: 'document', parse: parseRedrivePolicy },
    config: {
      field: 'redrivePolicy',
      parse: (canonical) => (canonical === undefined ? undefined : parseRedrivePolicy(canonical)),
    },
  },
  {
    name: 'RedriveAllowPolicy',
    access: 'settable',
    value: { kind: 'document', parse: parseRedriveAllowPolicy },
    config: {
      field: 'redriveAllowPolicy',
      parse: (canonical) => (canonical === undefined ? undefined : parseRedriveAllowPolicy(canonical)),
    },
  },
  // SSE is recorded, not applied: AWS's defaults and combination rules (queue-config.ts) only.
  { name: 'KmsMasterKeyId', access: 'settable', value: { kind: 'text' } },
  // AWS applies 300 when a KMS key is set; raftq stores only what is given.
  { name: 'KmsDataKeyReusePeriodSeconds', access: 'settable', value: integer(60, 86_400) },
  { name: 'SqsManagedSseEnabled', access: 'settable', default: allQueues('true'), value: { kind: 'boolean' } },
  {
    name: 'FifoQueue',
    access: 'createOnly',
    default: fifoQueues('true'),
    value: { kind: 'boolean' },
    config: { field: 'isFifo', parse: (canonical) => canonical === 'true' },
  },
  {
    name: 'ContentBasedDeduplication',
    access: 'settable',
    isFifoOnly: true,
    default: fifoQueues('false'),
    value: { kind: 'boolean' },
    config: { field: 'isContentBasedDeduplication', parse: (canonical) => canonical === 'true' },
  },
  {
    name: 'DeduplicationScope',
    access: 'settable',
    isFifoOnly: true,
    default: fifoQueues('queue'),
    value: { kind: 'enum', values: ['queue', 'messageGroup'] },
    config: {
      field: 'deduplicationScope',
      parse: (canonical) => (canonical === 'messageGroup' ? 'messageGroup' : 'queue'),
    },
  },
  {
    name: 'FifoThroughputLimit',
    access: 'settable',
    isFifoOnly: true,
    default: fifoQueues('perQueue'),
    value: { kind: 'enum', values: ['perQueue', 'perMessageGroupId'] },
    config: {
      field: 'fifoThroughputLimit',
      parse: (canonical) => (canonical === 'perMessageGroupId' ? 'perMessageGroupId' : 'perQueue'),
    },
  },
  {
    name: 'ApproximateNumberOfMessages',
    access: 'readOnly',
    needsCounts: true,
    render: (facts) => facts.counts?.visible.toString(),
  },
  {
    name: 'ApproximateNumberOfMessagesNotVisible',
    access: 'readOnly',
    needsCounts: true,
    render: (facts) => facts.counts?.inFlight.toString(),
  },
  {
    name: 'ApproximateNumberOfMessagesDelayed',
    access: 'readOnly',
    needsCounts: true,
    render: (facts) => facts.counts?.delayed.toString(),
  },
  // AWS gives both timestamps in whole seconds.
  { name: 'CreatedTimestamp', access: 'readOnly', render: (facts) => Math.floor(facts.createdAtMs / 1000).toString() },
  {
    name: 'LastModifiedTimestamp',
    access: 'readOnly',
    render: (facts) => Math.floor(facts.lastModifiedAtMs / 1000).toString(),
  },
  { name: 'QueueArn', access: 'readOnly', render: (facts) => facts.queueArn },
];

/** A Policy is any JSON object: raftq keeps it for AddPermission/RemovePermission and does not enforce it. */
function parsePolicyDocument(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (cause) {
    throw new InvalidAttributeValueError('Policy', text, 'must be a JSON policy document', { cause });
  }
}

const specsByName = new Map(queueAttributeTable.map((spec) => [spec.name, spec]));

export function queueAttributeSpec(name: string): QueueAttributeSpec | undefined {
  return specsByName.get(name);
}
