/**
 * FIFO sequence numbers. Each partition has a counter row outside every generation, so a purge
 * never sends SequenceNumber backwards; the number a message gets is counter * fifoPartitionsMax
 * + partition, so numbers are unique across the partitions of a queue and increase within each.
 * Returned as decimal strings, as AWS returns them; they stay far below the 2^64 that fits in a
 * key element.
 */
import { assert } from '../base/assert.js';
import { raftqLimits } from '../base/limits.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function decodeSequenceCounter(bytes: Uint8Array | undefined): bigint {
  if (bytes === undefined) return 0n;
  const text = decoder.decode(bytes);
  assert(/^\d+$/.test(text), 'corrupt sequence counter row');
  return BigInt(text);
}

export function encodeSequenceCounter(counter: bigint): Uint8Array {
  return encoder.encode(counter.toString());
}

export function sequenceNumberOf(counter: bigint, partition: number): bigint {
  return counter * BigInt(raftqLimits.fifoPartitionsMax.value) + BigInt(partition);
}
