/**
 * Counts what the storage layer asks of the engine: point reads and iterators opened (each a
 * LevelDB seek), so a change that keeps reads in memory shows as a count, not only as noisy CPU.
 */
import type {
  Engine,
  EngineIterator,
  EngineIteratorOptions,
  EngineSnapshot,
  EngineWrite,
} from '../../src/storage/engine.js';

export class ReadTally {
  pointReads = 0;
  iteratorsOpened = 0;

  reset(): void {
    this.pointReads = 0;
    this.iteratorsOpened = 0;
  }
}

/** `engine`, with every read it serves counted in `tally` (snapshots' reads too). */
export function countingEngine(engine: Engine, tally: ReadTally): Engine {
  const countIterator = (open: () => EngineIterator): EngineIterator => {
    tally.iteratorsOpened++;
    return open();
  };
  return {
    get: (key) => {
      tally.pointReads++;
      return engine.get(key);
    },
    getMany: (keys) => {
      tally.pointReads += keys.length;
      return engine.getMany(keys);
    },
    iterator: (options: EngineIteratorOptions) => countIterator(() => engine.iterator(options)),
    write: (writes: readonly EngineWrite[], options) => engine.write(writes, options),
    flush: () => engine.flush(),
    snapshot: (): EngineSnapshot => {
      const snapshot = engine.snapshot();
      return {
        get: (key) => {
          tally.pointReads++;
          return snapshot.get(key);
        },
        getMany: (keys) => {
          tally.pointReads += keys.length;
          return snapshot.getMany(keys);
        },
        iterator: (options) => countIterator(() => snapshot.iterator(options)),
        release: () => snapshot.release(),
      };
    },
    close: () => engine.close(),
  };
}
