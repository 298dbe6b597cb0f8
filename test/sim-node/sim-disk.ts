/**
 * A node's disk in the whole-node simulation: the Raft log and the state as MemoryEngines that
 * outlive the node's process, plus the "directory entries" a snapshot install renames (which
 * database is the live state, the staging database, the install marker).
 *
 * - A process crash (kill -9) keeps every write: the operating system still has them.
 * - A power loss keeps, of each engine, what was synced and a prefix of the unsynced batches
 *   after it (MemoryEngine.crash): the last writes of a sequential log are lost or torn, never a
 *   later one without the earlier ones. Directory changes (the install steps) are durable at once,
 *   as the runtime syncs the directory after each.
 * Each incarnation of the process sees the engines through its own DiskHandle, which adds a
 * random latency to writes (so a crash can fall in the middle of one: an unfinished write is
 * lost) and refuses everything once its process is dead.
 */
import type { SeededPrng } from '../../src/base/prng.js';
import type { Scheduler } from '../../src/base/scheduler.js';
import { LevelLogStore, type LogStoreFaults, type Membership } from '../../src/cluster/level-log-store.js';
import type { NodeStorage, StateDirectory } from '../../src/cluster/node-storage.js';
import type { InstallMarker } from '../../src/cluster/state-install.js';
import { IncomingState, StateStore, type StateEngine } from '../../src/cluster/state-store.js';
import {
  EngineClosedError,
  type Engine,
  type EngineIterator,
  type EngineIteratorOptions,
  type EngineSnapshot,
  type EngineWrite,
} from '../../src/storage/engine.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import type { MvccFaults } from '../../src/storage/mvcc-store.js';
import { impliedNewQueueKeys } from '../../src/queue/implied-new-keys.js';

export interface DiskFaults {
  readonly log?: LogStoreFaults;
  readonly state?: MvccFaults;
}

export class SimDisk {
  readonly log = new MemoryEngine();
  state = new MemoryEngine();
  incoming: MemoryEngine | null = null;
  marker: InstallMarker | null = null;
  /** The state the current process opened last (for digest checks). */
  liveStore: StateStore | null = null;
  /** Snapshots received from a leader and swapped in. */
  installs = 0;

  private engines(): MemoryEngine[] {
    return [this.log, this.state, ...(this.incoming === null ? [] : [this.incoming])];
  }

  /** kill -9: the page cache survives, so every write does. */
  processCrash(): void {
    for (const engine of this.engines()) engine.crash({ unsyncedBatchesKept: engine.unsyncedBatchCount });
    this.liveStore = null;
  }

  /** Power loss: of each engine, a random prefix of its unsynced batches survives. Returns how many batches were lost in all. */
  powerLoss(prng: SeededPrng): number {
    let lostBatches = 0;
    for (const engine of this.engines()) {
      const unsynced = engine.unsyncedBatchCount;
      const kept = prng.intBelow(unsynced + 1);
      lostBatches += unsynced - kept;
      engine.crash({ unsyncedBatchesKept: kept });
    }
    this.liveStore = null;
    return lostBatches;
  }

  /** The storage one process incarnation uses; `costClock` times its state digests (virtual time). */
  storageFor(handle: DiskHandle, faults: DiskFaults, costClock: Pick<Scheduler, 'monotonicMs'>): NodeStorage {
    const disk = this;
    const stateDir: StateDirectory = {
      liveName: 'sim:state',
      async recover(logStore) {
        const marker = disk.marker;
        if (marker === null) {
          disk.incoming = null;
          return null;
        }
        await rollForward(disk, marker, logStore, handle);
        return marker;
      },
      async openLive() {
        const store = await StateStore.openOnEngine(
          handle.wrap(disk.state),
          {
            impliedNewKeys: impliedNewQueueKeys,
            ...(faults.state === undefined ? {} : { faults: faults.state }),
          },
          costClock,
        );
        disk.liveStore = store;
        return store;
      },
      async createIncoming() {
        const engine = new MemoryEngine();
        disk.incoming = engine;
        return IncomingState.onEngine(handle.wrap(engine), () => {
          if (disk.incoming === engine) disk.incoming = null;
        });
      },
      async swapIn(marker, logStore) {
        handle.check();
        disk.marker = marker;
        disk.installs++;
        await rollForward(disk, marker, logStore, handle);
      },
    };
    return {
      prepare: () => undefined,
      openLogStore: (bootstrap: Membership) =>
        LevelLogStore.openOnEngine(handle.wrap(disk.log), {
          path: 'sim:raft',
          bootstrap,
          ...(faults.log === undefined ? {} : { faults: faults.log }),
        }),
      stateDir,
    };
  }
}

/** state-install.ts's steps 2–4 on the simulated directory: rename in, record in the log, drop the marker. */
async function rollForward(
  disk: SimDisk,
  marker: InstallMarker,
  logStore: LevelLogStore,
  handle: DiskHandle,
): Promise<void> {
  handle.check();
  if (disk.incoming !== null) {
    disk.state = disk.incoming;
    disk.incoming = null;
  }
  if (logStore.snapshot().meta.index < marker.meta.index) await logStore.applySnapshot(marker.meta, marker.addresses);
  handle.check();
  disk.marker = null;
}

/** One process incarnation's access to the disk. */
export class DiskHandle {
  isAlive = true;

  constructor(
    private readonly writeLatencyMs: () => number,
    /** Waits `ms` of virtual time as the process that owns this handle. */
    readonly sleep: (ms: number) => Promise<void>,
  ) {}

  check(): void {
    if (!this.isAlive) throw new EngineClosedError('use the disk of a dead process');
  }

  wrap(engine: MemoryEngine): StateEngine {
    return new HandleEngine(engine, this, this.writeLatencyMs);
  }
}

class HandleEngine implements StateEngine {
  /** Writes land in the order they were made, as LevelDB's writer queue has them. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly inner: MemoryEngine,
    private readonly handle: DiskHandle,
    private readonly writeLatencyMs: () => number,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.handle.check();
    return this.inner.get(key);
  }

  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    this.handle.check();
    return this.inner.getMany(keys);
  }

  iterator(options: EngineIteratorOptions): EngineIterator {
    this.handle.check();
    return this.inner.iterator(options);
  }

  async write(writes: readonly EngineWrite[], options: { readonly sync: boolean }): Promise<void> {
    this.handle.check();
    // The batch is copied now (the caller may reuse its arrays) and lands after the latency.
    const batch = writes.map((write) =>
      write.kind === 'put'
        ? { kind: 'put' as const, key: write.key.slice(), value: write.value.slice() }
        : { kind: 'delete' as const, key: write.key.slice() },
    );
    await this.inOrder(options.sync, () => this.inner.write(batch, options));
  }

  async flush(): Promise<void> {
    this.handle.check();
    await this.inOrder(true, () => this.inner.flush());
  }

  private inOrder(isSynced: boolean, land: () => Promise<void>): Promise<void> {
    const done = this.tail.then(async () => {
      await this.pause(isSynced);
      this.handle.check();
      await land();
    });
    this.tail = done.catch(() => undefined);
    return done;
  }

  snapshot(): EngineSnapshot {
    this.handle.check();
    return this.inner.snapshot();
  }

  async close(): Promise<void> {
    // The engine belongs to the disk; closing a handle leaves it for the next incarnation.
  }

  async compactRange(): Promise<void> {
    this.handle.check();
  }

  private async pause(isSynced: boolean): Promise<void> {
    const latencyMs = this.writeLatencyMs() * (isSynced ? 2 : 1);
    if (latencyMs > 0) await this.handle.sleep(latencyMs);
  }
}
