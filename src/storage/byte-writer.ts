/**
 * A growable byte buffer for the binary encoders of this layer (key codec, txn codec, version
 * keys). Appends amortize to O(1); `finish()` returns a view of exactly the written bytes.
 */
import { Buffer } from 'node:buffer';

export class ByteWriter {
  private buffer: Uint8Array;
  private length = 0;

  constructor(initialCapacityBytes = 64) {
    this.buffer = newBuffer(Math.max(16, initialCapacityBytes));
  }

  get lengthBytes(): number {
    return this.length;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  bytes(value: Uint8Array): void {
    this.reserve(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** The bytes of `value` from `start` on, without making a view of them (a key's rest after a shared prefix). */
  bytesFrom(value: Uint8Array, start: number): void {
    const count = value.length - start;
    this.reserve(count);
    const { buffer } = this;
    let at = this.length;
    for (let i = start; i < value.length; i++) buffer[at++] = value[i] as number;
    this.length = at;
  }

  /** An unsigned integer below 2^64 as 8 big-endian bytes. */
  u64be(value: bigint): void {
    this.reserve(8);
    for (let shift = 56; shift >= 0; shift -= 8) this.buffer[this.length++] = Number((value >> BigInt(shift)) & 0xffn);
  }

  /** A non-negative safe integer as an unsigned LEB128 varint (7 bits a byte, low bits first). */
  varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.byte((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.byte(rest);
  }

  finish(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  /** A copy of exactly the written bytes, owning its own buffer (for a writer that is reused). */
  copy(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  /** Forgets what was written, keeping the buffer: a writer reused for many short encodings allocates once. */
  reset(): void {
    this.length = 0;
  }

  /**
   * The buffer, with room for `extraBytes` more bytes from `lengthBytes` on: an encoder that knows
   * an upper bound of what it writes checks capacity once, writes the bytes itself, then
   * `advance`s by what it wrote. Valid until the next call that may grow the buffer.
   */
  room(extraBytes: number): Uint8Array {
    this.reserve(extraBytes);
    return this.buffer;
  }

  /** Counts `writtenBytes` bytes written into the buffer `room` returned as part of the output. */
  advance(writtenBytes: number): void {
    this.length += writtenBytes;
  }

  private reserve(extraBytes: number): void {
    const needed = this.length + extraBytes;
    if (needed <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = newBuffer(capacity);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

/** Buffers this large skip zero-filling: an entry's is sized by an upper bound of tens of KiB. */
const unfilledBytesMin = 4096;

/**
 * A buffer for a writer. Only bytes it wrote are ever read back (`finish`, `copy`, and encoders
 * writing into `room` before they `advance`), so a large one need not be zeroed first. Not from
 * Buffer's shared pool: what a writer returns may be kept (a cached value, a log entry).
 */
function newBuffer(capacityBytes: number): Uint8Array {
  if (capacityBytes < unfilledBytesMin) return new Uint8Array(capacityBytes);
  const bytes = Buffer.allocUnsafeSlow(capacityBytes);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
