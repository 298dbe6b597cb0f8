import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the OS temp dir; remove it with the returned cleanup. */
export function makeTempDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `raftq-${prefix}-`));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
