/**
 * CRC-32C (Castagnoli), the checksum LevelDB puts on every record of its write-ahead log. Only the
 * start-up inspection of the Raft log's write-ahead log uses it (a few MiB at most, once), so a
 * table in JavaScript is fast enough.
 */
const table = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  table[n] = c >>> 0;
}

/** CRC-32C of `bytes`, continuing from `crc` (the CRC of what came before, 0 to start). */
export function crc32c(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = (table[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

/** LevelDB stores a CRC rotated and offset ("masked") so that a CRC of data holding CRCs stays strong. */
export function maskLevelCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}
