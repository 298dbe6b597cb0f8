/**
 * Mutual exclusion by key among the async operations of one node. FIFO sends to one partition all
 * write its sequence counter, so concurrent ones on a node would only conflict and retry; queueing
 * them here turns that wasted work into waiting. Sends from other nodes still meet in OCC.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `body` once every earlier holder of any of `keys` is done. Keys are taken in sorted order. */
  async withKeys<T>(keys: Iterable<string>, body: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waits = sorted.map((key) => this.tails.get(key) ?? Promise.resolve());
    for (const key of sorted) this.tails.set(key, held);
    try {
      await Promise.all(waits);
      return await body();
    } finally {
      release();
      for (const key of sorted) if (this.tails.get(key) === held) this.tails.delete(key);
    }
  }
}
