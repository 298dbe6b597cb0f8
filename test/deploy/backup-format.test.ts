/**
 * The backup byte format: what goes in comes out, and a file cut short, altered or followed by
 * junk is refused before a restore uses any of it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BackupFormatError, decodeBackup, encodeBackup, type BackupHeader } from '../../src/admin/backup-format.js';
import type { EngineEntry } from '../../src/storage/engine.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { RestoreRefusedError, restoreBackup } from '../../src/cli/restore-command.js';
import { makeTempDir } from '../support/temp-dir.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const header: BackupHeader = { nodeId: 'n2', appliedIndex: 42, createdAtMs: 1_700_000_000_000 };

async function backupBytes(rows: readonly EngineEntry[], chunkBytes: number): Promise<Buffer> {
  const engine = new MemoryEngine();
  if (rows.length > 0)
    await engine.write(
      rows.map((row) => ({ kind: 'put' as const, key: row.key, value: row.value })),
      { sync: true },
    );
  const snapshot = engine.snapshot();
  const parts: Uint8Array[] = [];
  for await (const part of encodeBackup(header, snapshot, chunkBytes)) parts.push(part);
  await snapshot.release();
  return Buffer.concat(parts);
}

async function* pieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function decode(bytes: Uint8Array, pieceBytes = 7): Promise<{ header: BackupHeader; rows: EngineEntry[] }> {
  const rows: EngineEntry[] = [];
  let seen: BackupHeader | null = null;
  await decodeBackup(pieces(bytes, pieceBytes), {
    onHeader: (h) => void (seen = h),
    onRows: async (batch) =>
      void rows.push(...batch.map((row) => ({ key: Uint8Array.from(row.key), value: Uint8Array.from(row.value) }))),
  });
  return { header: seen as unknown as BackupHeader, rows };
}

const rowsArbitrary = fc
  .uniqueArray(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 20 }), fc.uint8Array({ maxLength: 60 })), {
    selector: ([key]) => Buffer.from(key).toString('hex'),
    maxLength: 40,
  })
  .map((pairs) =>
    pairs
      .map(([key, value]) => ({ key, value }))
      .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key))),
  );

describe('backup format', () => {
  it('a decoded backup holds the header and every row of the frozen view, in key order, whatever the chunk and read sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArbitrary,
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 64 }),
        async (rows, chunkBytes, pieceBytes) => {
          const decoded = await decode(await backupBytes(rows, chunkBytes), pieceBytes);
          expect(decoded.header).toEqual(header);
          expect(
            decoded.rows.map((r) => [Buffer.from(r.key).toString('hex'), Buffer.from(r.value).toString('hex')]),
          ).toEqual(rows.map((r) => [Buffer.from(r.key).toString('hex'), Buffer.from(r.value).toString('hex')]));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a backup cut short anywhere is refused', async () => {
    const bytes = await backupBytes(
      Array.from({ length: 30 }, (_, i) => ({ key: Uint8Array.of(1, i), value: new Uint8Array(10).fill(i) })),
      64,
    );
    for (let cut = 0; cut < bytes.byteLength; cut += 13) {
      await expect(decode(bytes.subarray(0, cut)), `cut at ${cut}`).rejects.toBeInstanceOf(BackupFormatError);
    }
  });

  it('a changed byte in the rows is refused by the checksum, and bytes after the end are refused', async () => {
    const bytes = await backupBytes(
      Array.from({ length: 5 }, (_, i) => ({ key: Uint8Array.of(2, i), value: Uint8Array.of(i, i, i) })),
      1024,
    );
    const headerEnd = bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;
    const altered = Buffer.from(bytes);
    // The last byte of the first row's value, inside the first frame.
    altered.writeUInt8(altered.readUInt8(headerEnd + 4 + 4 + 2 + 4 + 2) ^ 0xff, headerEnd + 4 + 4 + 2 + 4 + 2);
    await expect(decode(altered)).rejects.toThrow(/checksum/);
    await expect(decode(Buffer.concat([bytes, Buffer.from('x')]))).rejects.toThrow(/follow the end/);
  });

  it('a file that is not a backup is refused at once', async () => {
    await expect(decode(Buffer.from('{"not": "a backup"}\n'))).rejects.toBeInstanceOf(BackupFormatError);
  });

  it('restore refuses a data directory that holds anything', async () => {
    const dir = makeTempDir('restore-refuse');
    try {
      writeFileSync(join(dir.path, 'something'), 'x');
      const file = join(dir.path, 'b.backup');
      writeFileSync(file, await backupBytes([], 64));
      await expect(
        restoreBackup({ file, dataDir: dir.path, id: 'n1', raftListen: '127.0.0.1:9326' }),
      ).rejects.toBeInstanceOf(RestoreRefusedError);
    } finally {
      dir.cleanup();
    }
  });
});
