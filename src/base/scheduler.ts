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

  /**
   * Runs `fn` once `delayMs` have passed on monotonicMs, never sooner. setTimeout alone can fire
   * up to a millisecond early by that measure: it counts whole milliseconds of the event loop's
   * clock, while performance.now() has fractions, so a timer set at 100.9 ms comes due at 120 for
   * a delay of 20 (about one wake-up in ten, measured). Callers compare against monotonicMs (a
   * follower's apply pacing found nothing due at such a wake-up and held entries for good), so a
   * wake-up that comes early waits for the rest.
   */
  after(delayMs: number, fn: () => void): () => void {
    const dueAtMs = performance.now() + delayMs;
    let timer: ReturnType<typeof setTimeout>;
    const arm = (waitMs: number) => {
      timer = setTimeout(() => {
        const leftMs = dueAtMs - performance.now();
        if (leftMs > 0) arm(Math.ceil(leftMs));
        else fn();
      }, waitMs);
    };
    arm(delayMs);
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
