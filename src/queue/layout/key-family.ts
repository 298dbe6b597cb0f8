/**
 * Which family of key-layout.ts a stored key belongs to, and which queue generation it is part
 * of: what the runtime needs to count live rows per family at apply time (raftq_state_rows) and to
 * find the ranges the reaper emptied. Pure decoding; no state.
 */
import { Buffer } from 'node:buffer';
import { decodeKey, elementEnd, type KeyElement } from '../../storage/key-codec.js';
import type { KeyRange } from '../../storage/txn.js';
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

interface RecentPrefix {
  /** The key's first classifyingElements elements, or the whole key when it has fewer. */
  readonly bytes: Uint8Array;
  readonly isWholeKey: boolean;
  readonly keyClass: ClassifiedKey;
}
/**
 * The prefixes classified last, newest first. The writes of one apply step are mostly rows of one
 * generation in a few families (data, vis, state), so a key is usually classified by comparing its
 * first bytes with a handful of prefixes, without finding its element boundaries or a map key.
 */
const recentPrefixes: RecentPrefix[] = [];
const recentPrefixesMax = 8;

export function classifyStateKey(key: Uint8Array): ClassifiedKey {
  for (const recent of recentPrefixes) if (isClassifiedBy(recent, key)) return recent.keyClass;
  // A key malformed within its prefix is 'other' (the elements after it are not looked at).
  let prefixEnd = 0;
  let elements = 0;
  for (; elements < classifyingElements && prefixEnd < key.length; elements++) {
    prefixEnd = elementEnd(key, prefixEnd);
    if (prefixEnd === -1) return other;
  }
  const prefixId = Buffer.from(key.buffer, key.byteOffset, prefixEnd).toString('latin1');
  let keyClass = classOfPrefix.get(prefixId);
  if (keyClass === undefined) {
    keyClass = classifyPrefix(key.subarray(0, prefixEnd));
    if (classOfPrefix.size >= prefixesMax) classOfPrefix.clear();
    classOfPrefix.set(prefixId, keyClass);
  }
  recentPrefixes.unshift({ bytes: key.slice(0, prefixEnd), isWholeKey: elements < classifyingElements, keyClass });
  if (recentPrefixes.length > recentPrefixesMax) recentPrefixes.pop();
  return keyClass;
}

/**
 * Whether `key` has the prefix `recent` holds. Elements are self-delimiting, so a key that starts
 * with a whole prefix's bytes has the same first elements; a key shorter than that prefix must equal it.
 */
function isClassifiedBy(recent: RecentPrefix, key: Uint8Array): boolean {
  const { bytes } = recent;
  if (recent.isWholeKey ? key.length !== bytes.length : key.length < bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (key[i] !== bytes[i]) return false;
  return true;
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
