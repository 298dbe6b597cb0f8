/**
 * High-throughput FIFO partitioning: a message group lives in exactly one partition, chosen by
 * FNV-1a of its id masked to the (power-of-two) partition count, so a group's order is decided
 * within one partition.
 */
import { assert } from '../base/assert.js';

const encoder = new TextEncoder();

/** FNV-1a of the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  // An ASCII text's UTF-8 bytes are its code units: hashed without encoding it (a receipt handle
  // hashes its queue name at every receive and delete).
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) return fnv1a32OfBytes(encoder.encode(text));
    hash = Math.imul(hash ^ unit, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function fnv1a32OfBytes(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash >>> 0;
}

export function partitionOfGroup(groupId: string | undefined, partitionCount: number): number {
  assert(
    partitionCount >= 1 && (partitionCount & (partitionCount - 1)) === 0,
    'partition count must be a power of two',
  );
  if (partitionCount === 1 || groupId === undefined) return 0;
  return fnv1a32(groupId) & (partitionCount - 1);
}

/**
 * Partitions in the order one receive visits them, starting at `start` (a per-queue rotating
 * counter) so that a hot partition 0 cannot starve the others (docs/TRAPS.md, trap 14).
 */
export function partitionVisitOrder(partitionCount: number, start: number): number[] {
  const order: number[] = [];
  for (let i = 0; i < partitionCount; i++) order.push((start + i) % partitionCount);
  return order;
}
