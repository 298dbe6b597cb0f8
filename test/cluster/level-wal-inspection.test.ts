import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, openSync, readdirSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LevelLogStore } from '../../src/cluster/level-log-store.js';
import { inspectLevelWal } from '../../src/cluster/level-wal-inspection.js';
import { crc32c } from '../../src/cluster/crc32c.js';
import { EntryType, type Entry } from '../../src/raft/types.js';
import { makeTempDir } from '../support/temp-dir.js';

const bootstrap = { confState: { voters: ['n1', 'n2', 'n3'], learners: [] }, index: 0, addresses: {} };
const utf8 = new TextEncoder();

function bigEntry(index: number): Entry {
  return { index, term: 1, type: EntryType.Normal, data: utf8.encode(`${index}:`.padEnd(5000 + index * 37, 'y')) };
}

function walFile(path: string): string {
  const name = readdirSync(path).find((file) => file.endsWith('.log'));
  if (name === undefined) throw new Error('no write-ahead log');
  return join(path, name);
}

function flipByteAt(file: string, position: number): void {
  const fd = openSync(file, 'r+');
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, position);
  byte[0] = (byte[0] ?? 0) ^ 0x01;
  writeSync(fd, byte, 0, 1, position);
  closeSync(fd);
}

describe('inspectLevelWal', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  async function writeBigLog(count: number): Promise<string> {
    const dir = makeTempDir('wal');
    cleanups.push(dir.cleanup);
    const path = join(dir.path, 'raft');
    const store = await LevelLogStore.open(path, bootstrap);
    for (let index = 1; index <= count; index++)
      await store.persist({ term: 1, vote: '', commit: Math.max(0, index - 2) }, [bigEntry(index)]);
    await store.close();
    return path;
  }

  it('computes CRC-32C as LevelDB does (the check value of "123456789")', () => {
    expect(crc32c(utf8.encode('123456789'))).toBe(0xe3069283);
  });

  it('reads a clean log whose records span blocks without reporting damage, and finds the last hard state', async () => {
    const path = await writeBigLog(30);
    expect(statSync(walFile(path)).size).toBeGreaterThan(3 * 32 * 1024);
    const inspection = inspectLevelWal(path, utf8.encode('hs'));
    expect(inspection.damage).toBeNull();
    expect(inspection.batchesRead).toBeGreaterThanOrEqual(30);
    expect(inspection.lastWatchedValue).not.toBeNull();
  });

  it('finds damage in an early block even though LevelDB keeps the later blocks, and the log is cut before it', async () => {
    const path = await writeBigLog(30);
    const file = walFile(path);
    flipByteAt(file, 40 * 1024);
    const inspection = inspectLevelWal(path, utf8.encode('hs'));
    expect(inspection.damage?.kind).toBe('checksum-mismatch');
    expect(inspection.damage?.offsetBytes).toBeLessThanOrEqual(40 * 1024);
    const store = await LevelLogStore.open(path, bootstrap);
    // Writes after the damage survive in LevelDB, but only what was committed before it is kept.
    expect(store.tailRepair?.keptLastIndex).toBeLessThan(8);
    expect(store.lastIndex()).toBe(store.tailRepair?.keptLastIndex);
    await store.close();
  });

  it('reports a file that ends inside a record as truncated', async () => {
    const path = await writeBigLog(5);
    const file = walFile(path);
    truncateSync(file, statSync(file).size - 3);
    expect(inspectLevelWal(path, utf8.encode('hs')).damage?.kind).toBe('truncated-record');
  });

  it('finds nothing to inspect in a directory that does not exist', () => {
    expect(inspectLevelWal('/nonexistent/raft', utf8.encode('hs'))).toEqual({
      damage: null,
      lastWatchedValue: null,
      batchesRead: 0,
      filesRead: 0,
    });
  });
});
