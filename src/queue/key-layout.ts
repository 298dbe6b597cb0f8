/**
 * Every key the queue layer reads or writes (docs/architecture/queue.md, "Key layout"). A queue's keys all start with
 * ("q", name); a generation's rows with ("q", name, "g", gen), so a purged or deleted generation
 * is one contiguous range. Global indexes have their own first element.
 *
 * Numbers in keys are non-negative safe integers; FIFO orders are bigints. The tuple codec
 * terminates every variable-length element, so no name or id can run into the next element
 * (docs/TRAPS.md, trap 15).
 */
import { decodeKey, decodeKeyFrom, encodeKey, prefixRange, type KeyElement } from '../storage/key-codec.js';
import type { KeyRange } from '../storage/txn.js';

export type KeyPart = KeyElement;

/** The element after the generation in its rows: ("q", name, "g", gen, family, …). */
export type GenerationFamily = 'data' | 'state' | 'vis' | 'age' | 'group' | 'dedup' | 'attempt';

const queueRoot = 'q';
const queueIndexRoot = 'queues';
const deadLetterSourceRoot = 'dlqsrc';
const tombstoneRoot = 'tomb';
const moveTaskRoot = 'move';

export const queueKeys = {
  meta: (name: string) => encodeKey([queueRoot, name, 'meta']),
  generation: (name: string) => encodeKey([queueRoot, name, 'gen']),
  /** FIFO sequence counter: outside any generation so SequenceNumber never goes back after a purge. */
  sequence: (name: string, partition: number) => encodeKey([queueRoot, name, 'seq', partition]),
  queuePrefix: (name: string): KeyRange => prefixRange([queueRoot, name]),
  queueNamePrefix: (name: string): readonly KeyPart[] => [queueRoot, name],
};

/** Rows of one generation of one queue. */
export class GenerationKeys {
  private readonly root: readonly KeyPart[];

  constructor(
    readonly queueName: string,
    readonly generation: number,
  ) {
    this.root = [queueRoot, queueName, 'g', generation];
  }

  range(): KeyRange {
    return prefixRange(this.root);
  }

  /** Every row of one family of this generation ('data', 'state', 'vis', …), all partitions. */
  familyRange(family: GenerationFamily): KeyRange {
    return prefixRange([...this.root, family]);
  }

  data(partition: number, messageId: string): Uint8Array {
    return encodeKey([...this.root, 'data', partition, messageId]);
  }

  /** A message's receive state once it was received (receive-state.ts); keyed like its data row. */
  receiveState(partition: number, messageId: string): Uint8Array {
    return encodeKey([...this.root, 'state', partition, messageId]);
  }

  /** Every state row of a partition. */
  receiveStatePrefix(partition: number): KeyRange {
    return prefixRange([...this.root, 'state', partition]);
  }

  visibility(partition: number, visibleAtMs: number, order: bigint, messageId: string): Uint8Array {
    return encodeKey([...this.root, 'vis', partition, visibleAtMs, order, messageId]);
  }

  /** Rows visible at `nowMs` (visibleAtMs <= nowMs), oldest first; from `fromMs` when a scan hint allows. */
  visibleRange(partition: number, nowMs: number, fromMs = 0): KeyRange {
    const gte =
      fromMs > 0
        ? encodeKey([...this.root, 'vis', partition, fromMs])
        : prefixRange([...this.root, 'vis', partition]).gte;
    return { gte, lt: encodeKey([...this.root, 'vis', partition, nowMs + 1]) };
  }

  /** Rows not yet visible at `nowMs`: in flight or delayed. */
  futureRange(partition: number, nowMs: number): KeyRange {
    return {
      gte: encodeKey([...this.root, 'vis', partition, nowMs + 1]),
      lt: prefixRange([...this.root, 'vis', partition]).lt,
    };
  }

  visibilityPrefix(partition: number): KeyRange {
    return prefixRange([...this.root, 'vis', partition]);
  }

  /** Ordered by the start of the retention period (the send time, except for FIFO dead-letter copies). */
  age(partition: number, retentionStartMs: number, messageId: string): Uint8Array {
    return encodeKey([...this.root, 'age', partition, retentionStartMs, messageId]);
  }

  /** Rows whose retention started before `cutoffMs`. */
  ageRangeBefore(partition: number, cutoffMs: number): KeyRange {
    return {
      gte: prefixRange([...this.root, 'age', partition]).gte,
      lt: encodeKey([...this.root, 'age', partition, cutoffMs]),
    };
  }

  agePrefix(partition: number): KeyRange {
    return prefixRange([...this.root, 'age', partition]);
  }

  /** FIFO: a group's messages in SequenceNumber order; its first row is the group's head. */
  groupMember(partition: number, groupId: string, sequence: bigint): Uint8Array {
    return encodeKey([...this.root, 'group', partition, groupId, sequence]);
  }

  /** Every group row of a partition: all FIFO groups, each in SequenceNumber order. */
  groupPrefix(partition: number): KeyRange {
    return prefixRange([...this.root, 'group', partition]);
  }

  groupRange(partition: number, groupId: string): KeyRange {
    return prefixRange([...this.root, 'group', partition, groupId]);
  }

  /** FIFO deduplication; `groupScope` is the group id under DeduplicationScope=messageGroup, else ''. */
  dedup(partition: number, groupScope: string, deduplicationId: string): Uint8Array {
    return encodeKey([
      ...this.root,
      'dedup',
      partition,
      groupScope === '' ? 'queue' : 'group',
      groupScope,
      deduplicationId,
    ]);
  }

  dedupPrefix(partition: number): KeyRange {
    return prefixRange([...this.root, 'dedup', partition]);
  }

  receiveAttempt(attemptId: string): Uint8Array {
    return encodeKey([...this.root, 'attempt', attemptId]);
  }

  attemptPrefix(): KeyRange {
    return prefixRange([...this.root, 'attempt']);
  }
}

export const globalKeys = {
  /** One row per live queue: what ListQueues scans. */
  queueIndex: (name: string) => encodeKey([queueIndexRoot, name]),
  queueIndexRange: (): KeyRange => prefixRange([queueIndexRoot]),
  queueIndexFrom: (name: string) => encodeKey([queueIndexRoot, name]),
  /** Source queues whose RedrivePolicy names a dead-letter queue: ListDeadLetterSourceQueues. */
  deadLetterSource: (deadLetterQueueName: string, sourceName: string) =>
    encodeKey([deadLetterSourceRoot, deadLetterQueueName, sourceName]),
  deadLetterSourceRange: (deadLetterQueueName: string): KeyRange =>
    prefixRange([deadLetterSourceRoot, deadLetterQueueName]),
  /** A superseded generation that the reaper still has to clear. */
  tombstone: (name: string, generation: number) => encodeKey([tombstoneRoot, name, generation]),
  tombstoneRange: (): KeyRange => prefixRange([tombstoneRoot]),
  moveTask: (sourceArn: string, taskHandle: string) => encodeKey([moveTaskRoot, sourceArn, taskHandle]),
  moveTaskRange: (sourceArn: string): KeyRange => prefixRange([moveTaskRoot, sourceArn]),
  allMoveTasksRange: (): KeyRange => prefixRange([moveTaskRoot]),
};

/** Where a row of one queue generation sits: ("q", queueName, "g", generation, family, partition, …). */
interface RowPlace {
  readonly queueName: string;
  readonly generation: number;
  readonly partition: number;
}

/**
 * A message row key of one queue generation, decoded: the only place (with GenerationKeys, which
 * encodes them) that knows the positions of the elements. Dedup and attempt rows are not message
 * rows and parse as undefined.
 */
export type MessageRowKey = RowPlace &
  (
    | {
        readonly family: 'vis';
        readonly visibleAtMs: number;
        readonly order: number | bigint;
        readonly messageId: string;
      }
    | { readonly family: 'data' | 'state'; readonly messageId: string }
    | { readonly family: 'age'; readonly retentionStartMs: number; readonly messageId: string }
    | { readonly family: 'group'; readonly groupId: string; readonly sequence: bigint }
  );

/** Elements before a message row's own: "q", name, "g", generation, family, partition. */
const rowPlaceElements = 6;

/** Whether `key` is a queue key at all ("q", …): a byte test, no decoding (the encoded "q" element is 0x02 'q' 0x00). */
export function isQueueKey(key: Uint8Array): boolean {
  return key[0] === 0x02 && key[1] === 0x71 && key[2] === 0x00;
}

export function parseMessageRowKey(key: Uint8Array): MessageRowKey | undefined {
  if (!isQueueKey(key)) return undefined;
  const tuple = decodeKey(key);
  const [root, queueName, g, generation, family, partition] = tuple;
  if (
    root !== queueRoot ||
    typeof queueName !== 'string' ||
    g !== 'g' ||
    typeof generation !== 'number' ||
    typeof partition !== 'number'
  )
    return undefined;
  return messageRowOf({ queueName, generation, partition }, family, tuple.slice(rowPlaceElements));
}

/**
 * A message row key under a prefix already known (a scan of one family of one partition): only
 * the elements after it are decoded. `prefixLength` is the byte length of that encoded prefix.
 */
export function parseMessageRowKeyUnder(
  key: Uint8Array,
  place: RowPlace,
  family: GenerationFamily,
  prefixLength: number,
): MessageRowKey | undefined {
  return messageRowOf(place, family, decodeKeyFrom(key, prefixLength));
}

function messageRowOf(
  place: RowPlace,
  family: KeyElement | undefined,
  own: readonly KeyElement[],
): MessageRowKey | undefined {
  const [a, b, c] = own;
  switch (family) {
    case 'vis':
      if (typeof a !== 'number' || (typeof b !== 'number' && typeof b !== 'bigint') || typeof c !== 'string')
        return undefined;
      return { ...place, family, visibleAtMs: a, order: b, messageId: c };
    case 'data':
    case 'state':
      return typeof a === 'string' ? { ...place, family, messageId: a } : undefined;
    case 'age':
      return typeof a === 'number' && typeof b === 'string'
        ? { ...place, family, retentionStartMs: a, messageId: b }
        : undefined;
    case 'group':
      return typeof a === 'string' && (typeof b === 'number' || typeof b === 'bigint')
        ? { ...place, family, groupId: a, sequence: BigInt(b) }
        : undefined;
    default:
      return undefined;
  }
}
