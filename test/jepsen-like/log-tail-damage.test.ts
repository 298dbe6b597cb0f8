import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { damageLogTail } from '../../jepsen-like/nemesis/log-tail-damage.js';
import { SeededPrng } from '../../src/base/prng.js';
import { makeTempDir } from '../support/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function dataDirWithLogs(): string {
  const dir = makeTempDir('tail');
  cleanups.push(dir.cleanup);
  mkdirSync(join(dir.path, 'raft'));
  writeFileSync(join(dir.path, 'raft', '000003.log'), Buffer.alloc(100, 1));
  writeFileSync(join(dir.path, 'raft', '000005.log'), Buffer.alloc(200, 7));
  writeFileSync(join(dir.path, 'raft', 'MANIFEST-000001'), Buffer.alloc(50, 2));
  // The newest write-ahead log is the one written last.
  utimesSync(join(dir.path, 'raft', '000003.log'), new Date(1_000_000), new Date(1_000_000));
  return dir.path;
}

describe('log tail damage', () => {
  it('truncates the newest write-ahead log by the given bytes and leaves the others alone', () => {
    const dataDir = dataDirWithLogs();
    const damage = damageLogTail(dataDir, 'truncate', 64, new SeededPrng(1));
    expect(damage).toMatchObject({ how: 'truncate', sizeBytesBefore: 200, bytesAffected: 64 });
    expect(statSync(join(dataDir, 'raft', '000005.log')).size).toBe(136);
    expect(statSync(join(dataDir, 'raft', '000003.log')).size).toBe(100);
  });

  it('flips bits only within the tail it was given', () => {
    const dataDir = dataDirWithLogs();
    damageLogTail(dataDir, 'flip', 16, new SeededPrng(2));
    const bytes = readFileSync(join(dataDir, 'raft', '000005.log'));
    const changed = [...bytes].map((b, i) => (b !== 7 ? i : -1)).filter((i) => i >= 0);
    expect(changed.length).toBeGreaterThan(0);
    expect(Math.min(...changed)).toBeGreaterThanOrEqual(200 - 16);
  });

  it('answers undefined when the node has no log yet', () => {
    const dir = makeTempDir('tail-empty');
    cleanups.push(dir.cleanup);
    expect(damageLogTail(dir.path, 'truncate', 10, new SeededPrng(3))).toBeUndefined();
  });
});
