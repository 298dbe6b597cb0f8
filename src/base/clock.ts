/**
 * Time comes in through this interface so that deterministic code (raft, storage, queue) never
 * reads the wall clock and a simulation can replay any run from its seed.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as this clock sees them. */
  nowMs(): number;
}

/** The host's wall clock. Only the runtime (cluster, sqs, cli) may construct it. */
export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }
}

/** A clock that moves only when told to: for tests and the simulator. */
export class ManualClock implements Clock {
  constructor(private currentMs = 0) {}

  nowMs(): number {
    return this.currentMs;
  }

  advanceMs(deltaMs: number): void {
    if (deltaMs < 0) throw new RangeError(`ManualClock cannot go backwards: ${deltaMs} ms`);
    this.currentMs += deltaMs;
  }

  setMs(nowMs: number): void {
    this.currentMs = nowMs;
  }
}
