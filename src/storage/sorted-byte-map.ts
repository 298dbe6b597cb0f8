/**
 * An in-memory ordered map from byte strings to byte strings, for the memory engine.
 *
 * Entries live in chunks of bounded size (a sorted list of sorted arrays): insertion costs
 * O(log n + chunk size), iteration is a walk over arrays, and `fork()` is copy-on-write at chunk
 * granularity, so a snapshot costs O(n / chunk size) and a write after it copies one chunk.
 */
import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.js';

const chunkEntriesMax = 256;

interface Chunk {
  keys: Uint8Array[];
  values: Uint8Array[];
  /** True while another map (a fork) may read this chunk: it must be copied before a write. */
  isShared: boolean;
}

/** A position in the map: chunk index and index inside the chunk. */
export interface MapPosition {
  readonly chunk: number;
  readonly index: number;
}

export class SortedByteMap {
  private chunks: Chunk[] = [];
  private entryCount = 0;

  get size(): number {
    return this.entryCount;
  }

  /** A map with the same entries that later writes to either map do not affect. */
  fork(): SortedByteMap {
    const copy = new SortedByteMap();
    for (const chunk of this.chunks) chunk.isShared = true;
    copy.chunks = this.chunks.slice();
    copy.entryCount = this.entryCount;
    return copy;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const chunkIndex = this.chunkFor(key);
    const chunk = this.chunks[chunkIndex];
    if (chunk === undefined) return undefined;
    const { index, isFound } = searchChunk(chunk, key);
    return isFound ? chunk.values[index] : undefined;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], values: [value], isShared: false });
      this.entryCount = 1;
      return;
    }
    const chunkIndex = this.chunkFor(key);
    const chunk = this.writableChunk(chunkIndex);
    const { index, isFound } = searchChunk(chunk, key);
    if (isFound) {
      chunk.values[index] = value;
      return;
    }
    chunk.keys.splice(index, 0, key);
    chunk.values.splice(index, 0, value);
    this.entryCount++;
    if (chunk.keys.length > chunkEntriesMax * 2) this.split(chunkIndex);
  }

  delete(key: Uint8Array): boolean {
    const chunkIndex = this.chunkFor(key);
    const found = this.chunks[chunkIndex];
    if (found === undefined || !searchChunk(found, key).isFound) return false;
    const chunk = this.writableChunk(chunkIndex);
    const { index } = searchChunk(chunk, key);
    chunk.keys.splice(index, 1);
    chunk.values.splice(index, 1);
    this.entryCount--;
    if (chunk.keys.length === 0) this.chunks.splice(chunkIndex, 1);
    return true;
  }

  /** The first position whose key is ≥ `key` (or the end position). */
  lowerBound(key: Uint8Array): MapPosition {
    const chunkIndex = this.chunkFor(key);
    const chunk = this.chunks[chunkIndex];
    if (chunk === undefined) return { chunk: this.chunks.length, index: 0 };
    const { index } = searchChunk(chunk, key);
    return this.normalize({ chunk: chunkIndex, index });
  }

  /** The position of the first entry (or the end position when empty). */
  first(): MapPosition {
    return this.normalize({ chunk: 0, index: 0 });
  }

  isEnd(position: MapPosition): boolean {
    return position.chunk >= this.chunks.length;
  }

  keyAt(position: MapPosition): Uint8Array {
    const key = this.chunks[position.chunk]?.keys[position.index];
    assert(key !== undefined, 'SortedByteMap.keyAt past the end');
    return key;
  }

  valueAt(position: MapPosition): Uint8Array {
    const value = this.chunks[position.chunk]?.values[position.index];
    assert(value !== undefined, 'SortedByteMap.valueAt past the end');
    return value;
  }

  next(position: MapPosition): MapPosition {
    return this.normalize({ chunk: position.chunk, index: position.index + 1 });
  }

  /** The position before `position`, or undefined before the first entry. Works from the end position too. */
  previous(position: MapPosition): MapPosition | undefined {
    if (position.index > 0) return { chunk: position.chunk, index: position.index - 1 };
    for (let chunk = Math.min(position.chunk, this.chunks.length) - 1; chunk >= 0; chunk--) {
      const length = this.chunks[chunk]?.keys.length ?? 0;
      if (length > 0) return { chunk, index: length - 1 };
    }
    return undefined;
  }

  /** Index of the chunk that holds `key` or where it would be inserted. */
  private chunkFor(key: Uint8Array): number {
    let low = 0;
    let high = this.chunks.length - 1;
    // The last chunk whose first key is ≤ key; keys below every chunk go into chunk 0.
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      const firstKey = (this.chunks[middle] as Chunk).keys[0] as Uint8Array;
      if (Buffer.compare(firstKey, key) <= 0) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private normalize(position: MapPosition): MapPosition {
    let { chunk, index } = position;
    while (chunk < this.chunks.length && index >= (this.chunks[chunk] as Chunk).keys.length) {
      chunk++;
      index = 0;
    }
    return { chunk, index };
  }

  private writableChunk(chunkIndex: number): Chunk {
    const chunk = this.chunks[chunkIndex];
    assert(chunk !== undefined, 'SortedByteMap: chunk index out of range');
    if (!chunk.isShared) return chunk;
    const copy: Chunk = { keys: chunk.keys.slice(), values: chunk.values.slice(), isShared: false };
    this.chunks[chunkIndex] = copy;
    return copy;
  }

  private split(chunkIndex: number): void {
    const chunk = this.chunks[chunkIndex] as Chunk;
    const half = chunk.keys.length >> 1;
    const upper: Chunk = { keys: chunk.keys.splice(half), values: chunk.values.splice(half), isShared: false };
    this.chunks.splice(chunkIndex + 1, 0, upper);
  }
}

function searchChunk(chunk: Chunk, key: Uint8Array): { index: number; isFound: boolean } {
  let low = 0;
  let high = chunk.keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const order = Buffer.compare(chunk.keys[middle] as Uint8Array, key);
    if (order === 0) return { index: middle, isFound: true };
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return { index: low, isFound: false };
}
