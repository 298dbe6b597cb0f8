/**
 * Which family of key-layout.ts a stored key belongs to, and which queue generation it is part
 * of: what the runtime needs to count live rows per family at apply time (raftq_state_rows) and to
 * find the ranges the reaper emptied. Pure decoding; no state.
 */
import { Buffer } from 'node:buffer';
import { decodeKey, elementEnd, type KeyElement } from '../storage/key-codec.js';
import type { KeyRange } from '../storage/txn.js';
import { GenerationKeys } from './key-layout.js';

export type StateKeyFamily =
  | 'meta'
  | 'gen'
  | 'seq'
  | 'data'
  | 'state'
  | 'vis'
  | 'age'
  | 'group'
  | 'dedup'
  | 'attempt'
  | 'queues'
  | 'dlqsrc'
  | 'tombstone'
  | 'move'
  | 'other';

export interface ClassifiedKey {
  readonly family: StateKeyFamily;
  /**
   * The queue generation the key is a row of (data, state, vis, age, group, dedup, attempt) or, for a
   * tombstone, the generation it names: `name/gen` (queue names cannot hold '/').
   */
  readonly generationId?: string;
}

const generationFamilies = new Set<string>(['data', 'state', 'vis', 'age', 'group', 'dedup', 'attempt']);
const queueFamilies = new Set<string>(['meta', 'gen', 'seq']);
const other: ClassifiedKey = { family: 'other' };

/** A key's class depends on its first elements only (root, name, third, generation, family). */
const classifyingElements = 5;
/**
 * Classes of the key prefixes met lately, by the prefix's bytes: every applied change of a key's
 * liveness on every replica is classified, and the keys of one queue generation share a prefix.
 */
const classOfPrefix = new Map<string, ClassifiedKey>();
const prefixesMax = 4_096;

export function classifyStateKey(key: Uint8Array): ClassifiedKey {
  // A key malformed within its prefix is 'other' (the elements after it are not looked at).
  let prefixEnd = 0;
  for (let i = 0; i < classifyingElements && prefixEnd < key.length; i++) {
    prefixEnd = elementEnd(key, prefixEnd);
    if (prefixEnd === -1) return other;
  }
  const prefixId = Buffer.from(key.buffer, key.byteOffset, prefixEnd).toString('latin1');
  const known = classOfPrefix.get(prefixId);
  if (known !== undefined) return known;
  const keyClass = classifyPrefix(key.subarray(0, prefixEnd));
  if (classOfPrefix.size >= prefixesMax) classOfPrefix.clear();
  classOfPrefix.set(prefixId, keyClass);
  return keyClass;
}

function classifyPrefix(prefix: Uint8Array): ClassifiedKey {
  let tuple: KeyElement[];
  try {
    tuple = decodeKey(prefix);
  } catch {
    return other;
  }
  const [root, name, third, generation, family] = tuple;
  if (typeof name !== 'string') return other;
  switch (root) {
    case 'q':
      if (
        third === 'g' &&
        typeof generation === 'number' &&
        typeof family === 'string' &&
        generationFamilies.has(family)
      ) {
        return { family: family as StateKeyFamily, generationId: generationIdOf(name, generation) };
      }
      return typeof third === 'string' && queueFamilies.has(third) ? { family: third as StateKeyFamily } : other;
    case 'tomb':
      return typeof third === 'number' ? { family: 'tombstone', generationId: generationIdOf(name, third) } : other;
    case 'queues':
      return { family: 'queues' };
    case 'dlqsrc':
      return { family: 'dlqsrc' };
    case 'move':
      return { family: 'move' };
    default:
      return other;
  }
}

export function generationIdOf(name: string, generation: number): string {
  return `${name}/${generation}`;
}

/** Every key of the generation a generationId names. */
export function generationRangeOf(generationId: string): KeyRange {
  const slash = generationId.lastIndexOf('/');
  return new GenerationKeys(generationId.slice(0, slash), Number(generationId.slice(slash + 1))).range();
}
