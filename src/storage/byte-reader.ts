/**
 * Reads what ByteWriter wrote, with bounds checks: a truncated or corrupt input throws
 * ByteReaderError (a value of the caller's choosing is wrapped around it) instead of yielding
 * garbage.
 */
export class ByteReaderError extends Error {
  override readonly name = 'ByteReaderError';
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${reason} at byte ${offset}`);
  }
}

export class ByteReader {
  private offset = 0;

  constructor(private readonly source: Uint8Array) {}

  get position(): number {
    return this.offset;
  }

  get isAtEnd(): boolean {
    return this.offset === this.source.length;
  }

  byte(): number {
    const value = this.source[this.offset];
    if (value === undefined) throw new ByteReaderError(this.offset, 'unexpected end of input');
    this.offset++;
    return value;
  }

  /** `length` bytes as a view into the source (no copy). */
  bytes(length: number): Uint8Array {
    if (this.offset + length > this.source.length)
      throw new ByteReaderError(this.offset, `${length} bytes expected, input ends first`);
    const view = this.source.subarray(this.offset, this.offset + length);
    this.offset += length;
    return view;
  }

  /** An unsigned LEB128 varint that must be a safe integer. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (value > Number.MAX_SAFE_INTEGER) throw new ByteReaderError(this.offset, 'varint exceeds 2^53-1');
      if ((byte & 0x80) === 0) return value;
      scale *= 0x80;
    }
  }
}
