/**
 * The data directory as a person sees it: what is wrong with it when a node cannot open it, said
 * in one sentence instead of LevelDB's "Database failed to open" or a bare EEXIST from mkdir.
 * LevelDB keeps a LOCK file in each database it opens and refuses a second opener, so a locked
 * DIR/raft means another running node (or another process) has this directory.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RaftqError } from '../base/errors.js';

/** The data directory cannot be used; `reason` says why, without the path. */
export class DataDirError extends RaftqError {
  readonly code = 'DataDir';
  constructor(
    readonly dataDir: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Data directory ${dataDir}: ${reason}`, options);
  }
}

/** Creates `dataDir` if it is missing; refuses a path that is a file or lies under one. */
export function prepareDataDir(dataDir: string): void {
  try {
    const existing = statSync(dataDir, { throwIfNoEntry: false });
    if (existing !== undefined && !existing.isDirectory())
      throw new DataDirError(dataDir, 'it is a file, not a directory');
    mkdirSync(dataDir, { recursive: true });
  } catch (cause) {
    if (cause instanceof DataDirError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST')
      throw new DataDirError(dataDir, 'a part of its path is a file, not a directory', { cause });
    if (code === 'EACCES' || code === 'EPERM')
      throw new DataDirError(dataDir, `permission denied creating it (${code})`, { cause });
    throw cause;
  }
}

/**
 * Runs `open` on the LevelDB database in `dataDir/storeName`; a database whose LOCK another
 * process holds becomes a DataDirError that says so.
 */
export async function openDataDirStore<T>(dataDir: string, storeName: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (cause) {
    if (hasCauseCode(cause, 'LEVEL_LOCKED')) {
      throw new DataDirError(
        dataDir,
        `in use by another running raftq node (another process holds the lock ${join(dataDir, storeName, 'LOCK')}); stop that node, or give this one its own data directory`,
        { cause },
      );
    }
    throw cause;
  }
}

/** True when `error` or any error in its cause chain has `code`. */
function hasCauseCode(error: unknown, code: string): boolean {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 8;
    current = current.cause, depth++
  ) {
    if ((current as { code?: unknown }).code === code) return true;
  }
  return false;
}
