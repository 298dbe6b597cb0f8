/**
 * The clock and timers of a test node. On the manual clock time stands still until the test
 * calls advance(): a timer the queue layer sets (a long poll's deadline, the moment a delayed or
 * invisible message comes back) fires when the clock reaches it, never by itself, so a test of a
 * 30 s visibility timeout takes no 30 s. On the real clock both are the host's.
 */
import { ManualClock, SystemClock, type Clock } from '../base/clock.js';
import { MinHeap } from '../base/min-heap.js';
import type { QueueScheduler } from '../queue/queue-api.js';

export interface TestClock extends Clock, QueueScheduler {
  readonly isManual: boolean;
  /** Moves the manual clock forward, firing in time order every timer due on the way. */
  advance(deltaMs: number): void;
  /** Cancels every pending timer (the node is stopping). */
  cancelAll(): void;
}

interface PendingTimer {
  readonly dueMs: number;
  /** Breaks ties between timers due at the same ms: first set, first fired. */
  readonly sequence: number;
  readonly fn: () => void;
  isCancelled: boolean;
}

export class ManualTestClock implements TestClock {
  readonly isManual = true;
  private readonly clock: ManualClock;
  private readonly timers = new MinHeap<PendingTimer>(
    (a, b) => a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.sequence < b.sequence),
  );
  /** Timers due now run on the next turn of the event loop, as a real zero-delay timer would. */
  private readonly immediates = new Set<NodeJS.Immediate>();
  private sequence = 0;

  constructor(startMs: number) {
    this.clock = new ManualClock(startMs);
  }

  nowMs(): number {
    return this.clock.nowMs();
  }

  setTimerMs(delayMs: number, fn: () => void): () => void {
    if (delayMs <= 0) {
      const immediate = setImmediate(() => {
        this.immediates.delete(immediate);
        fn();
      });
      this.immediates.add(immediate);
      return () => {
        clearImmediate(immediate);
        this.immediates.delete(immediate);
      };
    }
    const timer: PendingTimer = {
      dueMs: this.clock.nowMs() + delayMs,
      sequence: this.sequence++,
      fn,
      isCancelled: false,
    };
    this.timers.push(timer);
    return () => {
      timer.isCancelled = true;
    };
  }

  advance(deltaMs: number): void {
    if (!Number.isFinite(deltaMs) || deltaMs < 0)
      throw new RangeError(`advanceClock takes a finite number of ms >= 0, got ${deltaMs}`);
    const targetMs = this.clock.nowMs() + deltaMs;
    // A timer fired on the way may set another one that is also due before the target: the heap
    // is read again after each, so it fires too, in its turn.
    for (let next = this.timers.peek(); next !== undefined && next.dueMs <= targetMs; next = this.timers.peek()) {
      this.timers.pop();
      if (next.isCancelled) continue;
      if (next.dueMs > this.clock.nowMs()) this.clock.setMs(next.dueMs);
      next.fn();
    }
    this.clock.setMs(targetMs);
  }

  cancelAll(): void {
    for (let timer = this.timers.pop(); timer !== undefined; timer = this.timers.pop()) timer.isCancelled = true;
    for (const immediate of this.immediates) clearImmediate(immediate);
    this.immediates.clear();
  }
}

export class RealTestClock implements TestClock {
  readonly isManual = false;
  private readonly clock = new SystemClock();
  private readonly timers = new Set<NodeJS.Timeout>();

  nowMs(): number {
    return this.clock.nowMs();
  }

  setTimerMs(delayMs: number, fn: () => void): () => void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delayMs);
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  advance(): void {
    throw new Error(
      'advanceClock needs the manual clock: this test node runs on the real clock (startTestNode({ clock: "real" }))',
    );
  }

  cancelAll(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
