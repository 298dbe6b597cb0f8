/**
 * A QueueScheduler driven by a ManualClock: timers fire when the test advances time.
 */
import type { ManualClock } from '../../../src/base/clock.js';
import type { QueueScheduler } from '../../../src/queue/queue-api.js';

export class ManualScheduler implements QueueScheduler {
  private timers: Array<{ atMs: number; fn: () => void; isCancelled: boolean }> = [];

  constructor(private readonly clock: ManualClock) {}

  setTimerMs(delayMs: number, fn: () => void): () => void {
    const timer = { atMs: this.clock.nowMs() + delayMs, fn, isCancelled: false };
    this.timers.push(timer);
    return () => {
      timer.isCancelled = true;
    };
  }

  get pendingCount(): number {
    return this.timers.filter((t) => !t.isCancelled).length;
  }

  /** When the earliest pending timer is due (Infinity when none is). */
  nextDueMs(): number {
    return Math.min(...this.timers.filter((t) => !t.isCancelled).map((t) => t.atMs));
  }

  /** Advances the clock by `deltaMs`, firing due timers in time order. */
  advanceMs(deltaMs: number): void {
    const targetMs = this.clock.nowMs() + deltaMs;
    for (;;) {
      const due = this.timers.filter((t) => !t.isCancelled && t.atMs <= targetMs).sort((a, b) => a.atMs - b.atMs)[0];
      if (due === undefined) break;
      if (due.atMs > this.clock.nowMs()) this.clock.setMs(due.atMs);
      due.isCancelled = true;
      due.fn();
    }
    this.clock.setMs(targetMs);
    this.timers = this.timers.filter((t) => !t.isCancelled);
  }
}
