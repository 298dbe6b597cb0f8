/**
 * Counts what the storage layer asks of the engine: point reads and iterators opened (each a
 * LevelDB seek), so a change that keeps reads in memory shows as a count, not only as noisy CPU.
 */
import type {
  Engine,
  EngineIteratorOptions,
  EngineReader,
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

/** `reader`'s point reads and iterators, counted in `tally`. */
function countingReader(reader: EngineReader, tally: ReadTally): EngineReader {
  return {
    get: (key) => {
      tally.pointReads++;
      return reader.get(key);
    },
    getMany: (keys) => {
      tally.pointReads += keys.length;
      return reader.getMany(keys);
    },
    iterator: (options: EngineIteratorOptions) => {
      tally.iteratorsOpened++;
      return reader.iterator(options);
    },
  };
}

/** `engine`, with every read it serves counted in `tally` (snapshots' reads too). */
export function countingEngine(engine: Engine, tally: ReadTally): Engine {
  return {
    ...countingReader(engine, tally),
    write: (writes: readonly EngineWrite[], options) => engine.write(writes, options),
    flush: () => engine.flush(),
    snapshot: (): EngineSnapshot => {
      const snapshot = engine.snapshot();
      return { ...countingReader(snapshot, tally), release: () => snapshot.release() };
    },
    close: () => engine.close(),
  };
}
