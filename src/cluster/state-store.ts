/**
 * The state database of a node (DATA/state): the MVCC store on LevelDB, plus what the runtime
 * needs around it — a digest of the applied state, a frozen view to stream as a snapshot, and a
 * staging database to receive one into.
 */
import { createHash } from 'node:crypto';
import { raftqLimits } from '../base/limits.js';
import { SystemScheduler, type Scheduler } from '../base/scheduler.js';
import { rmSync } from 'node:fs';
import type { Engine, EngineEntry, EngineReader } from '../storage/engine.js';
import { LevelEngine, flushMarkerKey, type LevelEngineOptions } from '../storage/level-engine.js';
import { MvccStore, type MvccStoreOptions } from '../storage/mvcc-store.js';
import { bytesEqual } from '../storage/key-codec.js';
import { appliedRowKey, systemRowMarker } from '../storage/system-keys.js';
import { decodeVersionValue, logicalKeyOf, userSpaceStart } from '../storage/version-key.js';
import { decodeRows } from './snapshot-chunks.js';

/** The host's monotonic clock: what a digest's cost is measured on unless the opener says otherwise. */
const hostClock = new SystemScheduler();

/** A digest that takes longer than this to compute is reused for a while (see digest()). */
const digestCheapMs = 50;

/** The state database's LevelDB options: a larger write buffer than the log's (levelDbStateWriteBufferBytes). */
function stateEngineOptions(): LevelEngineOptions {
  return { writeBufferSizeBytes: raftqLimits.levelDbStateWriteBufferBytes.value };
}

export interface StateDigest {
  readonly appliedIndex: number;
  readonly digest: string;
}

/** What the state needs of its engine: the Engine, and a compaction of a key range (a no-op where there is nothing to compact). */
export interface StateEngine extends Engine {
  compactRange(start: Uint8Array, end: Uint8Array): Promise<void>;
}

/** What the layer above may tell the state's MVCC store to save it reads (never what it decides). */
export type StateStoreHints = Pick<MvccStoreOptions, 'impliedNewKeys'>;

export class StateStore {
  private digestCache: StateDigest | null = null;
  private digestReusableUntilMs = 0;

  private constructor(
    readonly engine: StateEngine,
    readonly mvcc: MvccStore,
    private readonly costClock: Pick<Scheduler, 'monotonicMs'>,
  ) {}

  static async open(path: string, hints: StateStoreHints = {}): Promise<StateStore> {
    return StateStore.openOnEngine(await LevelEngine.open(path, stateEngineOptions()), hints);
  }

  /**
   * The state stored in `engine`, which it then owns (the simulator's memory engines). `costClock`
   * measures how long a digest took (the simulator's virtual time; default the host's).
   */
  static async openOnEngine(
    engine: StateEngine,
    options: MvccStoreOptions = {},
    costClock: Pick<Scheduler, 'monotonicMs'> = hostClock,
  ): Promise<StateStore> {
    const mvcc = await MvccStore.open(engine, options);
    return new StateStore(engine, mvcc, costClock);
  }

  get appliedIndex(): number {
    return this.mvcc.appliedIndex;
  }

  get lastCommitTs(): number {
    return this.mvcc.lastCommitTs;
  }

  /**
   * A digest of the logical applied state: every system row and the newest visible value of every
   * user key, read from one frozen snapshot. Old versions and deletion markers are left out: each
   * replica collects those on its own schedule, so they differ between replicas that agree.
   */
  async digest(): Promise<StateDigest> {
    // A large state takes a while to hash: then a digest is reused (with the index it was taken
    // at, so the pair stays true) for ten times as long as it took, bounding the cost of polling.
    if (this.digestCache !== null && this.costClock.monotonicMs() < this.digestReusableUntilMs) return this.digestCache;
    const snapshot = this.engine.snapshot();
    try {
      const appliedRow = await snapshot.get(appliedRowKey);
      const appliedIndex =
        appliedRow === undefined
          ? 0
          : Number(new DataView(appliedRow.buffer, appliedRow.byteOffset, appliedRow.byteLength).getBigUint64(0));
      if (this.digestCache !== null && this.digestCache.appliedIndex === appliedIndex) return this.digestCache;
      const startedMs = this.costClock.monotonicMs();
      const digest = await digestOf(snapshot);
      const tookMs = this.costClock.monotonicMs() - startedMs;
      this.digestCache = { appliedIndex, digest };
      this.digestReusableUntilMs = tookMs > digestCheapMs ? this.costClock.monotonicMs() + tookMs * 10 : 0;
      return this.digestCache;
    } finally {
      await snapshot.release();
    }
  }

  async close(): Promise<void> {
    await this.engine.close();
  }
}

async function digestOf(reader: EngineReader): Promise<string> {
  const hash = createHash('sha256');
  const lengths = new DataView(new ArrayBuffer(8));
  const add = (key: Uint8Array, value: Uint8Array): void => {
    lengths.setUint32(0, key.byteLength);
    lengths.setUint32(4, value.byteLength);
    hash.update(new Uint8Array(lengths.buffer));
    hash.update(key);
    hash.update(value);
  };
  const iterator = reader.iterator({});
  let lastLogical: Uint8Array | null = null;
  try {
    for (;;) {
      const page: EngineEntry[] = await iterator.next(1024);
      if (page.length === 0) break;
      for (const row of page) {
        if (row.key[0] === systemRowMarker) {
          if (!bytesEqual(row.key, flushMarkerKey)) add(row.key, row.value);
          continue;
        }
        if (row.key[0] !== undefined && row.key[0] < (userSpaceStart[0] as number)) continue;
        const logical = logicalKeyOf(row.key);
        // Versions of one key come newest first: only the first counts.
        if (lastLogical !== null && bytesEqual(logical, lastLogical)) continue;
        lastLogical = logical;
        const value = decodeVersionValue(row.value);
        if (value !== undefined) add(logical, value);
      }
    }
  } finally {
    await iterator.close();
  }
  return hash.digest('hex');
}

/** A database being filled from a snapshot stream (DATA/state-incoming). */
export class IncomingState {
  private constructor(
    private readonly engine: Engine,
    private readonly discard: () => void,
  ) {}

  static async create(path: string): Promise<IncomingState> {
    rmSync(path, { recursive: true, force: true });
    return new IncomingState(await LevelEngine.open(path, stateEngineOptions()), () =>
      rmSync(path, { recursive: true, force: true }),
    );
  }

  /** Fills `engine` (empty) and calls `discard` when abandoned: the simulator's disk. */
  static onEngine(engine: Engine, discard: () => void): IncomingState {
    return new IncomingState(engine, discard);
  }

  async writeChunk(data: Uint8Array): Promise<void> {
    const rows = decodeRows(data);
    if (rows.length === 0) return;
    await this.engine.write(
      rows.map((row) => ({ kind: 'put', key: row.key, value: row.value })),
      { sync: false },
    );
  }

  /** Makes everything durable and closes the database: it is ready to be swapped in. */
  async finish(): Promise<void> {
    await this.engine.flush();
    await this.engine.close();
  }

  async abandon(): Promise<void> {
    await this.engine.close().catch(() => undefined);
    this.discard();
  }
}
