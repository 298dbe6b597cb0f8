/**
 * Batches linearizable read requests into ReadIndex rounds. A round answers every request that
 * arrived before the round was issued (never one that arrived after: its read index must be taken
 * after the request began). On the leader a round is one RawNode.readIndex call whose ReadState
 * comes back in a later Ready; on a follower it is one ReadIndex call to the leader.
 */
export interface ReadRoundWaiter {
  resolve(index: number): void;
  reject(error: Error): void;
}

export class ReadIndexRounds {
  /** Waiters that arrived since the last round was issued. */
  private queued: ReadRoundWaiter[] = [];
  /** Issued rounds by context, waiting for their ReadState. */
  private readonly issued = new Map<string, ReadRoundWaiter[]>();
  private nextContextId = 1;

  enqueue(waiter: ReadRoundWaiter): void {
    this.queued.push(waiter);
  }

  hasQueued(): boolean {
    return this.queued.length > 0;
  }

  /** Takes the queued waiters as one round with a fresh context. */
  issue(): { context: Uint8Array; waiters: ReadRoundWaiter[] } | null {
    if (this.queued.length === 0) return null;
    const waiters = this.queued;
    this.queued = [];
    const context = new TextEncoder().encode(`r${this.nextContextId++}`);
    this.issued.set(contextKey(context), waiters);
    return { context, waiters };
  }

  /** A ReadState arrived: answer its round. */
  complete(context: Uint8Array, index: number): void {
    const key = contextKey(context);
    const waiters = this.issued.get(key);
    if (waiters === undefined) return;
    this.issued.delete(key);
    for (const waiter of waiters) waiter.resolve(index);
  }

  fail(context: Uint8Array, error: Error): void {
    const key = contextKey(context);
    const waiters = this.issued.get(key);
    if (waiters === undefined) return;
    this.issued.delete(key);
    for (const waiter of waiters) waiter.reject(error);
  }

  /** Leadership moved: no issued round will be answered. */
  failAll(error: Error): void {
    const all = [...this.issued.values(), this.queued];
    this.issued.clear();
    this.queued = [];
    for (const waiters of all) for (const waiter of waiters) waiter.reject(error);
  }
}

function contextKey(context: Uint8Array): string {
  return Buffer.from(context).toString('latin1');
}
