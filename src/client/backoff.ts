/**
 * Waiting between repeats of a transiently failed request: doubling from
 * clientRetryBackoffMsMin to clientRetryBackoffMsMax, and cut short by an abort.
 */
import { raftqLimits } from '../base/limits.js';

/** The wait before repeat number `attempt` (1 = the first repeat). */
export function backoffMs(attempt: number): number {
  const minMs = raftqLimits.clientRetryBackoffMsMin.value;
  const maxMs = raftqLimits.clientRetryBackoffMsMax.value;
  return Math.min(maxMs, minMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
