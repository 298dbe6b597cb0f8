/**
 * Swapping a received snapshot in for the state database, so that a crash at any point leaves a
 * usable node. The received state is complete in DATA/state-incoming before anything starts;
 * then:
 *   1. write the marker DATA/state-install.json (the snapshot's metadata), synced;
 *   2. rename DATA/state → DATA/state-previous, DATA/state-incoming → DATA/state, sync the dir;
 *   3. record the snapshot in the Raft log (one synced batch);
 *   4. remove DATA/state-previous and the marker.
 * Recovery at start-up rolls forward from wherever a crash stopped: with a marker the incoming
 * state is complete, so every remaining step is redone (each is idempotent). Without a marker a
 * leftover DATA/state-incoming is a partial download and is removed.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SnapshotMeta } from '../raft/types.js';
import type { LevelLogStore } from './level-log-store.js';

export interface StatePaths {
  readonly live: string;
  readonly incoming: string;
  readonly previous: string;
  readonly marker: string;
}

export function statePaths(dataDir: string): StatePaths {
  return {
    live: join(dataDir, 'state'),
    incoming: join(dataDir, 'state-incoming'),
    previous: join(dataDir, 'state-previous'),
    marker: join(dataDir, 'state-install.json'),
  };
}

export interface InstallMarker {
  readonly meta: SnapshotMeta;
  readonly addresses: Readonly<Record<string, string>>;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeFileSynced(path: string, text: string): void {
  const temp = `${path}.tmp`;
  writeFileSync(temp, text);
  const fd = openSync(temp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** Test hook: a crash point name, checked between the steps (see test/cluster/state-install.test.ts). */
export type InstallStep = 'marker-written' | 'state-renamed' | 'log-recorded';

export interface InstallHooks {
  readonly afterStep?: (step: InstallStep) => void;
}

/** Steps 1–4; the caller has closed the live state database and reopens it afterwards. */
export async function swapInSnapshot(
  dataDir: string,
  marker: InstallMarker,
  logStore: LevelLogStore,
  hooks: InstallHooks = {},
): Promise<void> {
  const paths = statePaths(dataDir);
  writeFileSynced(paths.marker, JSON.stringify(marker));
  syncDir(dataDir);
  hooks.afterStep?.('marker-written');
  await rollForward(dataDir, marker, logStore, hooks);
}

async function rollForward(
  dataDir: string,
  marker: InstallMarker,
  logStore: LevelLogStore,
  hooks: InstallHooks,
): Promise<void> {
  const paths = statePaths(dataDir);
  if (existsSync(paths.incoming)) {
    if (existsSync(paths.live)) {
      rmSync(paths.previous, { recursive: true, force: true });
      renameSync(paths.live, paths.previous);
    }
    renameSync(paths.incoming, paths.live);
    syncDir(dataDir);
  }
  hooks.afterStep?.('state-renamed');
  if (logStore.snapshot().meta.index < marker.meta.index) await logStore.applySnapshot(marker.meta, marker.addresses);
  hooks.afterStep?.('log-recorded');
  rmSync(paths.previous, { recursive: true, force: true });
  rmSync(paths.marker, { force: true });
  syncDir(dataDir);
}

/** Start-up: finish an install a crash interrupted, or clear a partial download. Returns the marker it finished, if any. */
export async function recoverStateInstall(dataDir: string, logStore: LevelLogStore): Promise<InstallMarker | null> {
  const paths = statePaths(dataDir);
  if (!existsSync(paths.marker)) {
    rmSync(paths.incoming, { recursive: true, force: true });
    // A previous state without a marker can only be a finished install's leftover.
    rmSync(paths.previous, { recursive: true, force: true });
    return null;
  }
  const marker = JSON.parse(readFileSync(paths.marker, 'utf8')) as InstallMarker;
  await rollForward(dataDir, marker, logStore, {});
  return marker;
}
