/**
 * Every key the queue layer reads or writes (docs/architecture/queue.md, "Key layout"). A queue's keys all start with
 * ("q", name); a generation's rows with ("q", name, "g", gen), so a purged or deleted generation
 * is one contiguous range. Global indexes have their own first element.
 *
 * Numbers in keys are non-negative safe integers; FIFO orders are bigints. The tuple codec
 * terminates every variable-length element, so no name or id can run into the next element
 * (docs/TRAPS.md, trap 15).
 */
import { decodeKey, encodeKey, KeyPrefix, KeyReader, prefixRange, type KeyElement } from '../../storage/key-codec.js';
import type { KeyRange } from '../../storage/txn.js';
import { StoredRowInvalidError } from './stored-json-row.js';

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
  /** ("q", name, "g", gen) and each family's ("q", name, "g", gen, family), encoded when first used. */
  private rootPrefix: KeyPrefix | undefined;
  private readonly familyPrefixes = new Map<GenerationFamily, KeyPrefix>();

  constructor(
    readonly queueName: string,
    readonly generation: number,
  ) {}

  range(): KeyRange {
    return this.root().range();
  }

  /** Every row of one family of this generation ('data', 'state', 'vis', …), all partitions. */
  familyRange(family: GenerationFamily): KeyRange {
    return this.family(family).range();
  }

  data(partition: number, messageId: string): Uint8Array {
    return this.family('data').key([partition, messageId]);
  }

  /** A message's receive state once it was received (receive-state.ts); keyed like its data row. */
  receiveState(partition: number, messageId: string): Uint8Array {
    return this.family('state').key([partition, messageId]);
  }

  /** Every state row of a partition. */
  receiveStatePrefix(partition: number): KeyRange {
    return this.family('state').range([partition]);
  }

  visibility(partition: number, visibleAtMs: number, order: bigint, messageId: string): Uint8Array {
    return this.family('vis').key([partition, visibleAtMs, order, messageId]);
  }

  /** Rows visible at `nowMs` (visibleAtMs <= nowMs), oldest first; from `fromMs` when a scan hint allows. */
  visibleRange(partition: number, nowMs: number, fromMs = 0): KeyRange {
    const vis = this.family('vis');
    const gte = fromMs > 0 ? vis.key([partition, fromMs]) : vis.key([partition]);
    return { gte, lt: vis.key([partition, nowMs + 1]) };
  }

  /** Rows not yet visible at `nowMs`: in flight or delayed. */
  futureRange(partition: number, nowMs: number): KeyRange {
    const vis = this.family('vis');
    return { gte: vis.key([partition, nowMs + 1]), lt: vis.range([partition]).lt };
  }

  visibilityPrefix(partition: number): KeyRange {
    return this.family('vis').range([partition]);
  }

  /** Ordered by the start of the retention period (the send time, except for FIFO dead-letter copies). */
  age(partition: number, retentionStartMs: number, messageId: string): Uint8Array {
    return this.family('age').key([partition, retentionStartMs, messageId]);
  }

  /** Rows whose retention started before `cutoffMs`. */
  ageRangeBefore(partition: number, cutoffMs: number): KeyRange {
    const age = this.family('age');
    return { gte: age.key([partition]), lt: age.key([partition, cutoffMs]) };
  }

  agePrefix(partition: number): KeyRange {
    return this.family('age').range([partition]);
  }

  /** FIFO: a group's messages in SequenceNumber order; its first row is the group's head. */
  groupMember(partition: number, groupId: string, sequence: bigint): Uint8Array {
    return this.family('group').key([partition, groupId, sequence]);
  }

  /** Every group row of a partition: all FIFO groups, each in SequenceNumber order. */
  groupPrefix(partition: number): KeyRange {
    return this.family('group').range([partition]);
  }

  groupRange(partition: number, groupId: string): KeyRange {
    return this.family('group').range([partition, groupId]);
  }

  /** FIFO deduplication; `groupScope` is the group id under DeduplicationScope=messageGroup, else ''. */
  dedup(partition: number, groupScope: string, deduplicationId: string): Uint8Array {
    return this.family('dedup').key([partition, groupScope === '' ? 'queue' : 'group', groupScope, deduplicationId]);
  }

  dedupPrefix(partition: number): KeyRange {
    return this.family('dedup').range([partition]);
  }

  receiveAttempt(attemptId: string): Uint8Array {
    return this.family('attempt').key([attemptId]);
  }

  attemptPrefix(): KeyRange {
    return this.family('attempt').range();
  }

  private root(): KeyPrefix {
    this.rootPrefix ??= KeyPrefix.of([queueRoot, this.queueName, 'g', this.generation]);
    return this.rootPrefix;
  }

  private family(family: GenerationFamily): KeyPrefix {
    let prefix = this.familyPrefixes.get(family);
    if (prefix === undefined) {
      prefix = this.root().extend([family]);
      this.familyPrefixes.set(family, prefix);
    }
    return prefix;
  }
}

export const globalKeys = {
  /** One row per live queue: what ListQueues scans. */
  queueIndex: (name: string) => encodeKey([queueIndexRoot, name]),
  queueIndexRange: (): KeyRange => prefixRange([queueIndexRoot]),
  /** The queue index rows of the names that start with `prefix` (all of them for an empty one). */
  queueIndexNamePrefixRange: (prefix: string): KeyRange => {
    if (prefix === '') return prefixRange([queueIndexRoot]);
    // A string element encodes as tag, UTF-8 bytes, terminator: without the terminator the
    // encoding is a byte prefix of every longer name that starts with `prefix`.
    const withTerminator = encodeKey([queueIndexRoot, prefix]);
    const gte = withTerminator.subarray(0, withTerminator.length - 1);
    const lt = new Uint8Array(gte.length + 1);
    lt.set(gte);
    lt[gte.length] = 0xff;
    return { gte, lt };
  },
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

/** Whether `key` is a queue key at all ("q", …): a byte test, no decoding (the encoded "q" element is 0x02 'q' 0x00). */
export function isQueueKey(key: Uint8Array): boolean {
  return key[0] === 0x02 && key[1] === 0x71 && key[2] === 0x00;
}

/** Byte length of the encoded "q" element that isQueueKey tests. */
const queueRootBytes = 3;
const generationMarker = encodeKey(['g']);
type MessageRowFamily = MessageRowKey['family'];
/** The encoded element of each family that has message rows (dedup and attempt rows are not). */
const encodedFamilies: readonly (readonly [MessageRowFamily, Uint8Array])[] = (
  ['vis', 'data', 'state', 'age', 'group'] as const
).map((family) => [family, encodeKey([family])] as const);

/**
 * Decodes only what a message row key holds, element by element: the queue name, the
 * generation, the family (matched as bytes), the partition and the family's own elements.
 * Elements after those are not looked at.
 */
export function parseMessageRowKey(key: Uint8Array): MessageRowKey | undefined {
  const placed = placeOf(key);
  return placed === undefined ? undefined : messageRowOf(placed.place, placed.family, placed.reader);
}

/** A message row key's place and family, decoded, with the reader positioned after its partition. */
function placeOf(
  key: Uint8Array,
): { readonly place: RowPlace; readonly family: MessageRowFamily; readonly reader: KeyReader } | undefined {
  if (!isQueueKey(key)) return undefined;
  const reader = new KeyReader(key, queueRootBytes);
  const queueName = reader.string();
  if (queueName === undefined || !reader.skipIf(generationMarker)) return undefined;
  const generation = reader.integer();
  if (typeof generation !== 'number') return undefined;
  let family: MessageRowFamily | undefined;
  for (const [candidate, encoded] of encodedFamilies) {
    if (reader.skipIf(encoded)) {
      family = candidate;
      break;
    }
  }
  if (family === undefined) return undefined;
  const partition = reader.integer();
  if (typeof partition !== 'number') return undefined;
  return { place: { queueName, generation, partition }, family, reader };
}

/** How many decoded prefixes a MessageRowKeyParser keeps: a message's rows are in at most five families. */
const knownPrefixesMax = 8;

/**
 * parseMessageRowKey for many keys in a row, as an apply step's writes come: a message at a time,
 * each message's rows under the same few prefixes (queue, generation, family, partition). The
 * prefixes decoded last are kept with what they decode to, and a key under one of them has only
 * its own elements decoded — no queue name decoded again for every row. One parser per run of
 * keys: it keeps copies of the prefixes, never the keys.
 */
export class MessageRowKeyParser {
  private readonly known: Array<{ prefix: Uint8Array; place: RowPlace; family: MessageRowFamily }> = [];
  private nextSlot = 0;

  parse(key: Uint8Array): MessageRowKey | undefined {
    for (const { prefix, place, family } of this.known)
      if (hasPrefix(key, prefix)) return messageRowOf(place, family, new KeyReader(key, prefix.length));
    const placed = placeOf(key);
    if (placed === undefined) return undefined;
    const entry = { prefix: key.slice(0, placed.reader.offset), place: placed.place, family: placed.family };
    if (this.known.length < knownPrefixesMax) this.known.push(entry);
    else {
      this.known[this.nextSlot] = entry;
      this.nextSlot = (this.nextSlot + 1) % knownPrefixesMax;
    }
    return messageRowOf(placed.place, placed.family, placed.reader);
  }
}

/** Whether `key` continues past `prefix` (compared from the end: a queue's prefixes differ last, in family and partition). */
function hasPrefix(key: Uint8Array, prefix: Uint8Array): boolean {
  if (key.length <= prefix.length) return false;
  for (let i = prefix.length - 1; i >= 0; i--) if (key[i] !== prefix[i]) return false;
  return true;
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
  return messageRowOf(place, family, new KeyReader(key, prefixLength));
}

/** The row's own elements, read from `reader` (positioned after the partition). */
function messageRowOf(place: RowPlace, family: GenerationFamily, reader: KeyReader): MessageRowKey | undefined {
  const { queueName, generation, partition } = place;
  switch (family) {
    case 'vis': {
      const visibleAtMs = reader.integer();
      const order = reader.integer();
      const messageId = reader.string();
      if (typeof visibleAtMs !== 'number' || order === undefined || messageId === undefined) return undefined;
      return { queueName, generation, partition, family, visibleAtMs, order, messageId };
    }
    case 'data':
    case 'state': {
      const messageId = reader.string();
      return messageId === undefined ? undefined : { queueName, generation, partition, family, messageId };
    }
    case 'age': {
      const retentionStartMs = reader.integer();
      const messageId = reader.string();
      if (typeof retentionStartMs !== 'number' || messageId === undefined) return undefined;
      return { queueName, generation, partition, family, retentionStartMs, messageId };
    }
    case 'group': {
      const groupId = reader.string();
      const sequence = reader.integer();
      if (groupId === undefined || sequence === undefined) return undefined;
      return { queueName, generation, partition, family, groupId, sequence: BigInt(sequence) };
    }
    default:
      return undefined;
  }
}

/**
 * The global keys, decoded: each checks that the key is the tuple its encoder in globalKeys
 * writes (root, then elements of the right types) and throws StoredRowInvalidError otherwise.
 */
export const globalKeyParts = {
  /** The queue name of a queue index row. */
  queueIndexName: (key: Uint8Array): string => {
    const [name] = partsOf(key, queueIndexRoot, ['string'], 'queue index');
    return name as string;
  },
  /** The source queue's name of a dead-letter source row. */
  deadLetterSourceName: (key: Uint8Array): string => {
    const [, source] = partsOf(key, deadLetterSourceRoot, ['string', 'string'], 'dead-letter source');
    return source as string;
  },
  tombstone: (key: Uint8Array): { readonly queueName: string; readonly generation: number } => {
    const [queueName, generation] = partsOf(key, tombstoneRoot, ['string', 'integer'], 'tombstone');
    return { queueName: queueName as string, generation: generation as number };
  },
  /** The source queue ARN of a move task row. */
  moveTaskSourceArn: (key: Uint8Array): string => {
    const [sourceArn] = partsOf(key, moveTaskRoot, ['string', 'string'], 'message move task');
    return sourceArn as string;
  },
};

/** Whether `key` is a queue's meta row ("q", name, "meta"). */
export function isQueueMetaKey(key: Uint8Array): boolean {
  if (!isQueueKey(key)) return false;
  const tuple = decodeKey(key);
  return tuple.length === 3 && tuple[2] === 'meta';
}

function partsOf(
  key: Uint8Array,
  root: string,
  types: readonly ('string' | 'integer')[],
  keyName: string,
): readonly KeyElement[] {
  const tuple = decodeKey(key);
  const parts = tuple.slice(1);
  const isAsWritten =
    tuple[0] === root &&
    parts.length === types.length &&
    parts.every((part, i) =>
      types[i] === 'string' ? typeof part === 'string' : typeof part === 'number' && Number.isSafeInteger(part),
    );
  if (!isAsWritten) throw new StoredRowInvalidError(`${keyName} key`, `not the tuple its encoder writes`);
  return parts;
}
