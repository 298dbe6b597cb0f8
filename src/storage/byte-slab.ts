/**
 * Short-lived small byte arrays cut from shared slabs. A typed array of more than 64 bytes gets a
 * backing store of its own outside the V8 heap, whose allocation, tracking and sweeping cost more
 * than filling it: most keys of the queue layer (70-90 bytes) and their version keys would each pay
 * that. A slab lives as long as any array cut from it, and is never written again where an array
 * was cut, so what is cut stays as it was filled. For arrays that live briefly (keys of a request,
 * the rows of one engine batch); whatever keeps bytes for long copies them (or it pins a slab).
 */

/** Larger arrays get a buffer of their own. */
const slabCutBytesMax = 512;
const slabBytes = 8_192;
let slab = new Uint8Array(slabBytes);
let slabUsedBytes = 0;

/** A zero-filled array of `lengthBytes`, from the current slab when it is small. */
export function slabArray(lengthBytes: number): Uint8Array {
  if (lengthBytes > slabCutBytesMax) return new Uint8Array(lengthBytes);
  if (slabUsedBytes + lengthBytes > slabBytes) {
    slab = new Uint8Array(slabBytes);
    slabUsedBytes = 0;
  }
  const start = slabUsedBytes;
  slabUsedBytes += lengthBytes;
  return slab.subarray(start, start + lengthBytes);
}
