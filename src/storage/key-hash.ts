/**
 * The in-memory hash of a key, shared by the newest-version cache, the absent-key set and the
 * key-change stamps (never stored, never sent: any node may compute another). An apply step
 * hashes every key it validates or writes several times, so it is read four bytes a step, and
 * the caller that holds a key's hash already hands it on (the `hash` parameters) instead of
 * hashing the key again.
 */

/**
 * FNV-style over 32-bit words, then a final mix so that the low bits (which key-change-stamps.ts
 * and the absent-key set mask) depend on every byte; cut to a small integer (a Map key V8 stores
 * without boxing).
 */
export function keyHashOf(key: Uint8Array): number {
  const length = key.length;
  let hash = 0x811c9dc5 ^ length;
  let i = 0;
  for (const wordsEnd = length - 3; i < wordsEnd; i += 4) {
    const word =
      (key[i] as number) |
      ((key[i + 1] as number) << 8) |
      ((key[i + 2] as number) << 16) |
      ((key[i + 3] as number) << 24);
    hash = Math.imul(hash ^ word, 0x01000193);
    hash ^= hash >>> 15;
  }
  for (; i < length; i++) hash = Math.imul(hash ^ (key[i] as number), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash & 0x3fffffff;
}
