import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { decodeStrictUtf8 } from '../../src/sqs/strict-utf8.js';

describe('strict UTF-8 decoding', () => {
  it('decodes valid UTF-8 exactly, a byte-order mark included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(decodeStrictUtf8(Buffer.from(`\ufeff${text}`, 'utf8'))).toEqual({ text: `\ufeff${text}` });
      }),
    );
  });

  it.each([
    [[0x61, 0xff, 0x62], 1, 0xff],
    [[0x61, 0x62, 0x80], 2, 0x80],
    [[0xc3, 0x28], 1, 0x28],
    [[0x61, 0xe2, 0x82], 1, 0xe2],
    [[0xf0, 0x9f, 0x98], 0, 0xf0],
    [[0xed, 0xa0, 0x80], 1, 0xa0],
  ])('refuses %j and says where it fails (offset %d)', (bytes, offset, byte) => {
    expect(decodeStrictUtf8(new Uint8Array(bytes))).toEqual({ invalidOffset: offset, invalidByte: byte });
  });

  it('refuses exactly what is not UTF-8, at an offset inside the body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const decoded = decodeStrictUtf8(bytes);
        if (isUtf8(bytes)) {
          expect(decoded).toEqual({ text: Buffer.from(bytes).toString('utf8') });
        } else {
          expect('invalidOffset' in decoded).toBe(true);
          const offset = (decoded as { invalidOffset: number }).invalidOffset;
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThan(bytes.byteLength);
          // Everything before the offset is a valid start of UTF-8 text.
          expect(() =>
            new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, offset), { stream: true }),
          ).not.toThrow();
        }
      }),
      { numRuns: 2000 },
    );
  });
});
