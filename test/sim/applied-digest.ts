import type { Entry } from '../../src/raft/types.js';

/**
 * A digest of everything a node has applied, chained entry by entry: two nodes with the same
 * digest at index i applied the same entries at every index up to i. Two 32-bit FNV-1a lanes with
 * different offsets give 64 bits, plenty for the few thousand entries of one run.
 */
export const initialAppliedDigest = '0000000000000000';

export function chainAppliedDigest(previous: string, entry: Entry): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const mix = (byte: number): void => {
    a = Math.imul(a ^ byte, 0x01000193) >>> 0;
    b = Math.imul(b ^ byte, 0x01000193) >>> 0;
    b = (b ^ (b >>> 15)) >>> 0;
  };
  for (let i = 0; i < previous.length; i++) mix(previous.charCodeAt(i));
  for (const n of [entry.index, entry.term, entry.type]) {
    for (let shift = 0; shift < 48; shift += 8) mix(Math.floor(n / 2 ** shift) & 0xff);
  }
  for (const byte of entry.data) mix(byte);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** A short fingerprint of an entry's payload, for comparing entries without keeping their data. */
export function entryFingerprint(entry: Entry): string {
  return chainAppliedDigest('', { ...entry, index: 0, term: 0 });
}
