/**
 * The meta row of a queue: its attributes (canonical AWS strings), tags, live generation and
 * timestamps. Stored as JSON: it is small, read by every message-path transaction, and cached
 * decoded by its bytes (see MetaCache) so the hot path does not re-parse it.
 */
import { assert } from '../../base/assert.js';
import { parseQueueConfig, type QueueConfig } from '../queue-config.js';
import { StoredJsonRow } from './stored-json-row.js';

export interface QueueMetaRecord {
  readonly name: string;
  /** The generation whose rows are live; bumped by PurgeQueue. */
  readonly generation: number;
  readonly attributes: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly createdAtMs: number;
  readonly lastModifiedAtMs: number;
  /** Persisted so the 60 s purge cooldown survives a leader change. */
  readonly lastPurgeAtMs?: number;
  /** Power of two, fixed at creation: 1 except for high-throughput FIFO queues. */
  readonly partitionCount: number;
}

export interface QueueMeta extends QueueMetaRecord {
  readonly config: QueueConfig;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeQueueMeta(record: QueueMetaRecord): Uint8Array {
  const { name, generation, attributes, tags, createdAtMs, lastModifiedAtMs, lastPurgeAtMs, partitionCount } = record;
  assert(Number.isSafeInteger(generation) && generation >= 1, 'queue generation must be a positive integer');
  assert(
    partitionCount >= 1 && (partitionCount & (partitionCount - 1)) === 0,
    'partition count must be a power of two',
  );
  return encoder.encode(
    JSON.stringify({
      name,
      generation,
      attributes,
      tags,
      createdAtMs,
      lastModifiedAtMs,
      lastPurgeAtMs,
      partitionCount,
    }),
  );
}

export function decodeQueueMeta(bytes: Uint8Array): QueueMeta {
  const row = StoredJsonRow.parse(bytes, 'queue meta');
  const lastPurgeAtMs = row.optionalNumber('lastPurgeAtMs');
  const record: QueueMetaRecord = {
    name: row.string('name'),
    generation: row.integer('generation', 1),
    attributes: row.stringMap('attributes'),
    tags: row.stringMap('tags'),
    createdAtMs: row.number('createdAtMs'),
    lastModifiedAtMs: row.number('lastModifiedAtMs'),
    ...(lastPurgeAtMs === undefined ? {} : { lastPurgeAtMs }),
    partitionCount: row.integer('partitionCount', 1),
  };
  return { ...record, config: parseQueueConfig(record.attributes) };
}

/** Generation rows hold the last generation a name has used, as a decimal string. */
export function encodeGeneration(generation: number): Uint8Array {
  return encoder.encode(String(generation));
}

export function decodeGeneration(bytes: Uint8Array | undefined): number {
  if (bytes === undefined) return 0;
  const generation = Number(decoder.decode(bytes));
  assert(Number.isSafeInteger(generation) && generation >= 0, 'corrupt generation row');
  return generation;
}

/**
 * Decoded meta keyed by the exact bytes read, per queue name. A hit only skips parsing: the bytes
 * still come from the transaction's own view, so a stale cache can never leak into a decision.
 */
export class MetaCache {
  private readonly entries = new Map<string, { bytes: Uint8Array; meta: QueueMeta }>();

  constructor(private readonly entriesMax = 1024) {}

  /** The last meta decoded for `name`, for hints that tolerate staleness (never for decisions). */
  lastSeen(name: string): QueueMeta | undefined {
    return this.entries.get(name)?.meta;
  }

  decode(name: string, bytes: Uint8Array): QueueMeta {
    const hit = this.entries.get(name);
    if (hit !== undefined && equalBytes(hit.bytes, bytes)) return hit.meta;
    const meta = decodeQueueMeta(bytes);
    assert(meta.name === name, () => `meta row of ${name} names ${meta.name}`);
    if (this.entries.size >= this.entriesMax) this.entries.clear();
    this.entries.set(name, { bytes, meta });
    return meta;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
