/**
 * The wait before a transaction or forwarded queue operation whose attempt failed is tried again:
 * doubling with each attempt from raftLimits.leaderRetryBackoffMsMin to leaderRetryBackoffMsMax.
 */
import { raftLimits } from '../base/limits.js';

export function leaderRetryBackoffMs(attempt: number): number {
  return Math.min(raftLimits.leaderRetryBackoffMsMin.value * 2 ** attempt, raftLimits.leaderRetryBackoffMsMax.value);
}
