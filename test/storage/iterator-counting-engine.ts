import type { EngineIterator, EngineIteratorOptions } from '../../src/storage/engine.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';

/**
 * A memory engine that counts the iterators opened on user keys (the reads of versions; system
 * rows start with 0x00), and the positionings of those iterators: one for each opened, one for
 * each seek (a lookup of several keys' newest versions shares an iterator and seeks per key).
 */
export class IteratorCountingEngine extends MemoryEngine {
  userIterators = 0;
  userPositionings = 0;

  override iterator(options: EngineIteratorOptions): EngineIterator {
    const start = options.gte;
    const iterator = super.iterator(options);
    if (start !== undefined && start[0] === 0x00) return iterator;
    this.userIterators++;
    this.userPositionings++;
    return {
      next: (entriesMax) => iterator.next(entriesMax),
      seek: (target) => {
        this.userPositionings++;
        iterator.seek(target);
      },
      close: () => iterator.close(),
    };
  }
}
