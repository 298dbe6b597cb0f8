import { openSync, readdirSync, readSync, statSync, truncateSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { Prng } from '../../src/base/prng.js';

export interface LogTailDamage {
  readonly file: string;
  readonly how: 'truncate' | 'flip';
  readonly sizeBytesBefore: number;
  readonly bytesAffected: number;
}

/**
 * Damages the tail of a stopped node's Raft log as a crash of a disk that lied about fsync would:
 * the newest LevelDB write-ahead log under DATA/raft loses its last `bytes` (truncate) or has a
 * few bytes of that tail flipped (flip). The node must notice on restart and repair from its peers
 * rather than serve (or vote with) what it lost. Returns undefined if there is no log to damage.
 */
export function damageLogTail(
  dataDir: string,
  how: 'truncate' | 'flip',
  bytes: number,
  prng: Prng,
): LogTailDamage | undefined {
  const raftDir = join(dataDir, 'raft');
  let newest: { path: string; mtimeMs: number; size: number } | undefined;
  for (const name of safeReaddir(raftDir)) {
    if (!name.endsWith('.log')) continue;
    const path = join(raftDir, name);
    const stat = statSync(path);
    if (stat.size > 0 && (newest === undefined || stat.mtimeMs > newest.mtimeMs))
      newest = { path, mtimeMs: stat.mtimeMs, size: stat.size };
  }
  if (newest === undefined) return undefined;
  const affected = Math.min(bytes, newest.size);
  if (how === 'truncate') {
    truncateSync(newest.path, newest.size - affected);
    return { file: newest.path, how, sizeBytesBefore: newest.size, bytesAffected: affected };
  }
  const fd = openSync(newest.path, 'r+');
  try {
    const flips = Math.min(8, affected);
    for (let i = 0; i < flips; i++) {
      const position = newest.size - 1 - prng.intBelow(affected);
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, position);
      byte[0] = (byte[0] ?? 0) ^ (1 << prng.intBelow(8));
      writeSync(fd, byte, 0, 1, position);
    }
    return { file: newest.path, how, sizeBytesBefore: newest.size, bytesAffected: flips };
  } finally {
    closeSync(fd);
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
