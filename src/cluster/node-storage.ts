/**
 * Where a node keeps its Raft log and its state: the seam between the cluster runtime and the
 * disk. In production both are LevelDB databases under the data directory (dataDirStorage); the
 * simulator gives each node memory engines that survive a simulated process crash and lose their
 * unsynced batches in a simulated power loss (test/sim-node/sim-disk.ts).
 */
import { join } from 'node:path';
import { openDataDirStore, prepareDataDir } from './data-dir.js';
import { LevelLogStore, type Membership } from './level-log-store.js';
import { recoverStateInstall, statePaths, swapInSnapshot, type InstallMarker } from './state-install.js';
import { IncomingState, StateStore, type StateStoreHints } from './state-store.js';

/** The state database and the staging area a received snapshot is written into, then swapped in (state-install.ts). */
export interface StateDirectory {
  /** Start-up: finish an install a crash interrupted, or clear a partial download. */
  recover(logStore: LevelLogStore): Promise<InstallMarker | null>;
  /** Opens the live state database. */
  openLive(): Promise<StateStore>;
  /** An empty staging database for a snapshot being received. */
  createIncoming(): Promise<IncomingState>;
  /** Swaps the finished staging database in for the (closed) live one, crash-safely, and records the snapshot in the log. */
  swapIn(marker: InstallMarker, logStore: LevelLogStore): Promise<void>;
  /** Names the live state in messages. */
  readonly liveName: string;
}

export interface NodeStorage {
  /** Creates what the stores need (the data directory). */
  prepare(): void;
  openLogStore(bootstrap: Membership): Promise<LevelLogStore>;
  readonly stateDir: StateDirectory;
}

/** LevelDB databases under `dataDir`: DATA/raft, DATA/state (and DATA/state-incoming while a snapshot arrives). */
export function dataDirStorage(dataDir: string, hints: StateStoreHints = {}): NodeStorage {
  const paths = statePaths(dataDir);
  return {
    prepare: () => prepareDataDir(dataDir),
    openLogStore: (bootstrap) =>
      openDataDirStore(dataDir, 'raft', () => LevelLogStore.open(join(dataDir, 'raft'), bootstrap)),
    stateDir: {
      recover: (logStore) => recoverStateInstall(dataDir, logStore),
      openLive: () => openDataDirStore(dataDir, 'state', () => StateStore.open(paths.live, hints)),
      createIncoming: () => IncomingState.create(paths.incoming),
      swapIn: (marker, logStore) => swapInSnapshot(dataDir, marker, logStore),
      liveName: paths.live,
    },
  };
}
