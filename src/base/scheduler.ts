/**
 * Timers come in through this interface so that the cluster runtime can run on the host's event
 * loop (SystemScheduler) or on a simulator's virtual time, where a run replays from its seed.
 */
export interface Scheduler {
  /** Runs `fn` every `intervalMs` until the returned function is called. */
  every(intervalMs: number, fn: () => void): () => void;
  /** Runs `fn` once after `delayMs`, unless the returned function is called first. */
  after(delayMs: number, fn: () => void): () => void;
  /** Runs `fn` once on the next turn of the event loop, after the I/O due now (setImmediate), unless the returned function is called first. */
  immediate(fn: () => void): () => void;
  /** Milliseconds on a clock that never goes back (not the wall clock): for deadlines. */
  monotonicMs(): number;
}

/** The host's timers. Only the runtime (cluster, sqs, cli) may construct it. */
export class SystemScheduler implements Scheduler {
  every(intervalMs: number, fn: () => void): () => void {
    const timer = setInterval(fn, intervalMs);
    return () => clearInterval(timer);
  }

  after(delayMs: number, fn: () => void): () => void {
    const timer = setTimeout(fn, delayMs);
    return () => clearTimeout(timer);
  }

  immediate(fn: () => void): () => void {
    const immediate = setImmediate(fn);
    return () => clearImmediate(immediate);
  }

  monotonicMs(): number {
    return performance.now();
  }
}
