/**
 * What a checksum on every Raft log value costs: CRC-32 (node:zlib, native) against SHA-256
 * (node:crypto) cut to 4 bytes, over the entry key and an entry of 200 B, 4 KiB and 64 KiB.
 * Run: `npm run build && node dist/bench/log-checksum.js`. The log store uses CRC-32
 * (src/cluster/sealed-value.ts); the figures are in docs/architecture/cluster.md.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

const key = new Uint8Array(9);
const checksums: ReadonlyArray<readonly [string, (data: Uint8Array) => unknown]> = [
  ['crc32', (data) => crc32(data, crc32(key))],
  ['sha256/4', (data) => createHash('sha256').update(key).update(data).digest().subarray(0, 4)],
];

for (const sizeBytes of [200, 4096, 65536]) {
  const data = new Uint8Array(sizeBytes).map((_, i) => (i * 7) & 0xff);
  const iterations = sizeBytes > 10_000 ? 20_000 : 200_000;
  for (const [name, checksum] of checksums) {
    for (let i = 0; i < 2_000; i++) checksum(data);
    const startNs = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) checksum(data);
    const perCallUs = Number(process.hrtime.bigint() - startNs) / 1_000 / iterations;
    console.log(`${name.padEnd(9)} ${String(sizeBytes).padStart(6)} B: ${perCallUs.toFixed(2)} µs`);
  }
}
