import { describe, expect, it } from 'vitest';
import { ChunkVerifier, decodeRows, snapshotChunks } from '../../src/cluster/snapshot-chunks.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';

describe('snapshot chunks', () => {
  it('carry every row of the engine, in order, within the chunk size, and verify', async () => {
    const engine = new MemoryEngine();
    const rows = Array.from({ length: 500 }, (_, i) => ({
      kind: 'put' as const,
      key: new TextEncoder().encode(`k${String(i).padStart(4, '0')}`),
      value: new Uint8Array(100).fill(i % 251),
    }));
    await engine.write(rows, { sync: true });
    const chunks = [];
    for await (const chunk of snapshotChunks(engine.snapshot(), 4_096)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.at(-1)?.isLast).toBe(true);
    const verifier = new ChunkVerifier();
    const received = [];
    for (const chunk of chunks) {
      expect(verifier.accept(chunk)).toEqual({ ok: true });
      expect(chunk.data.byteLength).toBeLessThan(4_096 + 200);
      received.push(...decodeRows(chunk.data));
    }
    expect(received.map((r) => new TextDecoder().decode(r.key))).toEqual(
      rows.map((r) => new TextDecoder().decode(r.key)),
    );
  });

  it('refuse a stream with a corrupted or missing chunk', async () => {
    const engine = new MemoryEngine();
    await engine.write(
      Array.from({ length: 100 }, (_, i) => ({
        kind: 'put' as const,
        key: Uint8Array.of(1, i),
        value: new Uint8Array(64),
      })),
      { sync: true },
    );
    const chunks = [];
    for await (const chunk of snapshotChunks(engine.snapshot(), 1_024)) chunks.push(chunk);
    const corrupted = new ChunkVerifier();
    const first = chunks[0]!;
    const flipped = first.data.slice();
    flipped[10] = (flipped[10] ?? 0) ^ 0xff;
    expect(corrupted.accept({ ...first, data: flipped }).ok).toBe(false);
    const gapped = new ChunkVerifier();
    expect(gapped.accept(first).ok).toBe(true);
    expect(gapped.accept(chunks[2]!).ok).toBe(false);
  });
});
