/**
 * The in-memory key hash (key-hash.ts): every byte and the length count, and its low bits spread
 * keys of one queue (which share long prefixes) as evenly as chance would.
 */
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../../src/storage/key-codec.js';
import { keyHashOf } from '../../src/storage/key-hash.js';

describe('the key hash', () => {
  it('changes when any one byte of a key changes, whatever its place (the tail past the last whole word too)', () => {
    for (const length of [1, 2, 3, 4, 5, 7, 8, 57, 58, 59, 60, 69]) {
      const key = Uint8Array.from({ length }, (_, i) => (i * 31 + 7) & 0xff);
      const hash = keyHashOf(key);
      for (let at = 0; at < length; at++) {
        const changed = key.slice();
        changed[at] = (changed[at] as number) ^ 0x01;
        expect(keyHashOf(changed), `length ${length}, byte ${at}`).not.toBe(hash);
      }
    }
  });

  it('tells a key from the same key with a zero byte more', () => {
    const key = encodeKey(['q', 'jobs', 'g', 1, 'data', 0, 'm-1']);
    const longer = new Uint8Array(key.length + 1);
    longer.set(key);
    expect(keyHashOf(longer)).not.toBe(keyHashOf(key));
    expect(keyHashOf(new Uint8Array(0))).not.toBe(keyHashOf(new Uint8Array(1)));
  });

  it('is a small non-negative integer and the same for equal keys', () => {
    const key = encodeKey(['q', 'jobs', 'g', 1, 'vis', 0, 1_796_640_000_000, 12, 'm-12']);
    const hash = keyHashOf(key);
    expect(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 30).toBe(true);
    expect(keyHashOf(Uint8Array.from(key))).toBe(hash);
  });

  it('spreads the keys of one queue over its low 16 bits as a random function would', () => {
    const buckets = new Set<number>();
    const count = 100_000;
    for (let i = 0; i < count; i++) {
      const key = encodeKey(['q', 'jobs', 'g', 1, 'vis', 0, 1_796_640_000_000 + i, i, `m-${i}`]);
      buckets.add(keyHashOf(key) & 0xffff);
    }
    // 65,536 buckets, 100,000 keys: a random function fills 65,536 × (1 − e^(−100,000/65,536)) ≈ 51,541.
    expect(buckets.size).toBeGreaterThan(51_000);
  });
});
