import { describe, expect, it } from 'vitest';
import { messageAttributeSizeBytes, messageSizeBytes } from '../../src/queue/message-size.js';

describe('message size', () => {
  it("counts the UTF-8 bytes of the body and of each attribute's name, type and value", () => {
    const attributes = {
      ñ: { dataType: 'String', stringValue: '€' },
      raw: { dataType: 'Binary.png', binaryValue: Uint8Array.of(1, 2, 3) },
    };
    expect(messageSizeBytes('héllo', attributes)).toBe(6 + (2 + 6 + 3) + (3 + 10 + 3));
  });

  it('counts both values of an attribute that carries a string and a binary value', () => {
    // What a batch entry may carry before validation refuses it: every byte sent counts.
    expect(
      messageAttributeSizeBytes('a', { dataType: 'Binary', stringValue: 'xy', binaryValue: Uint8Array.of(1, 2, 3) }),
    ).toBe(1 + 6 + 2 + 3);
  });

  it('does not count an empty attribute map', () => {
    expect(messageSizeBytes('', {})).toBe(0);
  });
});
