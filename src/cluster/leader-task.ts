/**
 * Background work that only the leader does (the reaper, move tasks): run every `intervalMs`
 * while this node leads, never on a follower. It starts at once when the node becomes leader and
 * the signal of the run in progress aborts as soon as the node stops leading, so the work ends
 * after its current transaction instead of proposing cleanup from a follower.
 */
import { SystemScheduler, type Scheduler } from '../base/scheduler.js';

export interface LeadershipSource {
  isLeader(): boolean;
  readonly isStopping: boolean;
  /** Called on every change of leader, role or membership; returns an unsubscribe function. */
  onLeadershipChange(listener: () => void): () => void;
}

export interface LeaderTaskOptions {
  readonly intervalMs: number;
  /** One run; resolving `{ hasMoreWork: true }` starts the next run at once instead of after intervalMs. */
  readonly run: (signal: AbortSignal) => Promise<void | { readonly hasMoreWork: boolean }>;
  readonly onError: (error: unknown) => void;
  /** The timers the runs are scheduled on; default the host's. */
  readonly scheduler?: Scheduler;
}

export class LeaderTask {
  private timer: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: { controller: AbortController; done: Promise<void> } | null = null;
  private wasLeader = false;
  private readonly scheduler: Scheduler;

  constructor(
    private readonly node: LeadershipSource,
    private readonly options: LeaderTaskOptions,
  ) {
    this.scheduler = options.scheduler ?? new SystemScheduler();
  }

  start(): void {
    this.timer = this.scheduler.every(this.options.intervalMs, () => this.maybeRun());
    this.unsubscribe = this.node.onLeadershipChange(() => this.onLeadershipChange());
    this.onLeadershipChange();
  }

  /** Stops the timer and aborts the run in progress; resolves once it has ended. */
  async stop(): Promise<void> {
    this.timer?.();
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const running = this.running;
    running?.controller.abort();
    await running?.done;
  }

  get isRunning(): boolean {
    return this.running !== null;
  }

  private onLeadershipChange(): void {
    const isLeader = this.node.isLeader();
    if (!isLeader) this.running?.controller.abort();
    if (isLeader && !this.wasLeader) this.maybeRun();
    this.wasLeader = isLeader;
  }

  private maybeRun(): void {
    if (this.running !== null || this.timer === null || !this.node.isLeader() || this.node.isStopping) return;
    // Registered before the run starts, so a leadership change during its first step aborts it.
    const running = { controller: new AbortController(), done: Promise.resolve() };
    this.running = running;
    const { signal } = running.controller;
    let hasMoreWork = false;
    running.done = Promise.resolve()
      .then(() => this.options.run(signal))
      .then((outcome) => {
        hasMoreWork = outcome?.hasMoreWork === true;
      })
      .catch((error: unknown) => {
        if (!signal.aborted) this.options.onError(error);
      })
      .finally(() => {
        if (this.running === running) this.running = null;
        // A backlog: run again on the next turn of the event loop (other work interleaves).
        if (hasMoreWork && !signal.aborted) this.scheduler.after(0, () => this.maybeRun());
      });
  }
}
