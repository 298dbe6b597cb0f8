import type { EngineIterator, EngineIteratorOptions } from '../../src/storage/engine.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';

/** A memory engine that counts the iterators opened on user keys (the reads of versions; system rows start with 0x00). */
export class IteratorCountingEngine extends MemoryEngine {
  userIterators = 0;

  override iterator(options: EngineIteratorOptions): EngineIterator {
    const start = options.gte;
    if (start === undefined || start[0] !== 0x00) this.userIterators++;
    return super.iterator(options);
  }
}
