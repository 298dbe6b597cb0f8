import { describe, expect, it } from 'vitest';
import { fnv1a32, partitionOfGroup } from '../../src/queue/partitioning.js';

/** FNV-1a over bytes, written out plainly: what a stored group's partition and a handle's queue tag were computed with. */
function referenceFnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

describe('fnv1a32', () => {
  it('gives the published FNV-1a values', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes of texts that are not ASCII, wherever the first such character is', () => {
    expect(fnv1a32('Grüße')).toBe(0xb8226e38);
    expect(fnv1a32('😀x')).toBe(0xb8f2d250);
    for (const text of ['é', 'queue-é', 'a\u007f\u0080', 'x'.repeat(40) + '日本', '\ud83d\ude00'])
      expect(fnv1a32(text)).toBe(referenceFnv1a32(text));
  });

  it('agrees with the byte-wise reference on random texts, so stored partitions and receipt handles keep their meaning', () => {
    let seed = 7;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let n = 0; n < 500; n++) {
      const length = next() % 24;
      let text = '';
      for (let i = 0; i < length; i++) text += String.fromCharCode(next() % 3 === 0 ? next() % 0x800 : next() % 0x80);
      expect(fnv1a32(text)).toBe(referenceFnv1a32(text));
      expect(partitionOfGroup(text === '' ? 'g' : text, 8)).toBe(referenceFnv1a32(text === '' ? 'g' : text) & 7);
    }
  });
});
