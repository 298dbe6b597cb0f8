/**
 * The wait after a failed delivery before the message is delivered again, applied as the
 * message's new visibility timeout (whole seconds, rounded up). Constant, or growing: retryDelayMs
 * after the first failure, doubling with each delivery, never above retryDelayMsMax. The count is
 * the queue's ApproximateReceiveCount, so the growth holds across consumers and restarts.
 */
import { sqsLimits } from '../base/limits.js';

export function retryDelayMsFor(
  policy: { retryDelayMs: number; retryDelayMsMax?: number },
  receiveCount: number,
): number {
  if (policy.retryDelayMsMax === undefined) return policy.retryDelayMs;
  const doublings = Math.max(0, Math.min(receiveCount - 1, 52));
  return Math.min(policy.retryDelayMsMax, policy.retryDelayMs * 2 ** doublings);
}

export function retryDelaySecondsFor(
  policy: { retryDelayMs: number; retryDelayMsMax?: number },
  receiveCount: number,
): number {
  return Math.min(sqsLimits.visibilityTimeoutSecondsMax.value, Math.ceil(retryDelayMsFor(policy, receiveCount) / 1000));
}
