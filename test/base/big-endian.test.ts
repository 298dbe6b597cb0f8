import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  readFloat64BE,
  readUint32BE,
  readUint64BE,
  writeFloat64BE,
  writeUint32BE,
  writeUint64BE,
} from '../../src/base/big-endian.js';

/** A byte array at an offset inside a larger buffer, as values read from storage are. */
function offsetArray(length: number, offset: number): Uint8Array {
  return new Uint8Array(new ArrayBuffer(length + offset + 3), offset, length);
}

describe('big-endian', () => {
  it('writes the bytes DataView writes, and reads back what was written, at any offset', () => {
    fc.assert(
      fc.property(fc.double(), fc.integer({ min: 0, max: 0xffffffff }), fc.nat(7), (float, uint32, at) => {
        const ours = offsetArray(at + 12, 5);
        const theirs = new DataView(new ArrayBuffer(at + 12));
        writeFloat64BE(ours, at, float);
        writeUint32BE(ours, at + 8, uint32);
        theirs.setFloat64(at, float);
        theirs.setUint32(at + 8, uint32);
        expect([...ours]).toEqual([...new Uint8Array(theirs.buffer)]);
        expect(Object.is(readFloat64BE(ours, at), float)).toBe(true);
        expect(readUint32BE(ours, at + 8)).toBe(uint32);
      }),
    );
  });

  it('writes a safe integer as setBigUint64 does and reads it back', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.nat(4), (value, at) => {
        const ours = offsetArray(at + 8, 1);
        const theirs = new DataView(new ArrayBuffer(at + 8));
        writeUint64BE(ours, at, value);
        theirs.setBigUint64(at, BigInt(value));
        expect([...ours]).toEqual([...new Uint8Array(theirs.buffer)]);
        expect(readUint64BE(ours, at)).toBe(value);
      }),
    );
  });

  it('refuses to read or write outside the array, and a 64-bit integer it cannot hold exactly', () => {
    const bytes = new Uint8Array(8);
    expect(() => readFloat64BE(bytes, 1)).toThrow(RangeError);
    expect(() => writeFloat64BE(bytes, -1, 1)).toThrow(RangeError);
    expect(() => readUint32BE(bytes, 5)).toThrow(RangeError);
    expect(() => writeUint32BE(bytes, 6, 1)).toThrow(RangeError);
    expect(() => writeUint64BE(bytes, 0, -1)).toThrow(RangeError);
    expect(() => writeUint64BE(bytes, 0, 2 ** 53)).toThrow(RangeError);
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 53n);
    expect(() => readUint64BE(bytes, 0)).toThrow(RangeError);
  });
});
