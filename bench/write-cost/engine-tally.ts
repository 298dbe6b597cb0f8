/**
 * Counts what the storage layer asks of the engine: point reads and iterators opened (each a
 * LevelDB seek), and rows and batches written (every row a LevelDB put or delete, a few µs of CPU
 * each, versions, the txn-id table's rows and the applied index alike), so a change that keeps
 * reads in memory or writes fewer rows shows as a count, not only as noisy CPU.
 */
import type {
  Engine,
  EngineIteratorOptions,
  EngineReader,
  EngineSnapshot,
  EngineWrite,
} from '../../src/storage/engine.js';

export class EngineTally {
  pointReads = 0;
  iteratorsOpened = 0;
  rowsPut = 0;
  rowsDeleted = 0;
  batchesWritten = 0;

  reset(): void {
    this.pointReads = 0;
    this.iteratorsOpened = 0;
    this.rowsPut = 0;
    this.rowsDeleted = 0;
    this.batchesWritten = 0;
  }

  noteWrites(writes: readonly EngineWrite[]): void {
    this.batchesWritten++;
    for (const write of writes) {
      if (write.kind === 'put') this.rowsPut++;
      else this.rowsDeleted++;
    }
  }
}

/** `reader`'s point reads and iterators, counted in `tally`. */
function countingReader(reader: EngineReader, tally: EngineTally): EngineReader {
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

/** `engine`, with every read it serves (snapshots' reads too) and every write counted in `tally`. */
export function countingEngine(engine: Engine, tally: EngineTally): Engine {
  return {
    ...countingReader(engine, tally),
    write: (writes: readonly EngineWrite[], options) => {
      tally.noteWrites(writes);
      return engine.write(writes, options);
    },
    flush: () => engine.flush(),
    snapshot: (): EngineSnapshot => {
      const snapshot = engine.snapshot();
      return { ...countingReader(snapshot, tally), release: () => snapshot.release() };
    },
    close: () => engine.close(),
  };
}
