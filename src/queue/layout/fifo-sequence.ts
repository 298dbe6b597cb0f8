/**
 * FIFO sequence numbers. Each partition has a counter row outside every generation, so a purge
 * never sends SequenceNumber backwards; the number a message gets is counter * fifoPartitionsMax
 * + partition, so numbers are unique across the partitions of a queue and increase within each.
 * Returned as decimal strings zero-padded to 20 digits, as AWS returns them, so that clients
 * comparing them as strings get the numeric order; they stay far below the 2^64 that fits in a key
 * element (20 digits hold every 64-bit value).
 */
import { assert } from '../../base/assert.js';
import { raftqLimits } from '../../base/limits.js';

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

const sequenceNumberDigits = 20;

/** The SequenceNumber string of a message, as AWS formats it: 20 decimal digits. */
export function formatSequenceNumber(sequence: bigint): string {
  assert(sequence >= 0n && sequence < 1n << 64n, 'sequence number outside 64 bits');
  return sequence.toString().padStart(sequenceNumberDigits, '0');
}
