/**
 * Virtual time for a whole-node simulation: one queue of timers, run one at a time in time order
 * (ties in the order they were set), each followed by every promise continuation it caused before
 * the next one runs. Nothing waits for real time, so a run is a pure function of its seed.
 *
 * The node's code takes every timer, deadline and duration through the Scheduler seam
 * (ClusterNodeOptions.runtime.scheduler), which this implements, and its wall time through the
 * injected Clock; a lint rule keeps the host's Date.now, performance.now, setTimeout, setInterval
 * and setImmediate out of src/cluster and src/forwarding. So a run replaces no host global: the
 * host's timers stay the host's (and the test runner's) while a simulation is on.
 *
 * Every timer belongs to a process (an owner): the node whose code set it. A simulated crash of a
 * process drops all its timers at once, so nothing of the dead process ever runs again; its
 * unfinished promise chains simply never resume.
 */
import type { Scheduler } from '../../src/base/scheduler.js';
import { MinHeap } from '../../src/base/min-heap.js';

const hostSetImmediate = globalThis.setImmediate;

/** The wall clock a run starts at (2026-01-01T00:00:00Z): fixed, so traces replay. */
export const simEpochMs = 1_767_225_600_000;

interface VirtualTimer {
  atMs: number;
  seq: number;
  readonly owner: string;
  readonly fn: () => void;
  readonly intervalMs: number | null;
  isCancelled: boolean;
}

export class VirtualTime implements Scheduler {
  private currentMs = 0;
  private nextSeq = 0;
  private readonly queue = new MinHeap<VirtualTimer>((a, b) => a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq));
  private readonly liveByOwner = new Map<string, Set<VirtualTimer>>();
  /** The process whose code runs now; timers set now belong to it. */
  owner = 'sim';
  /** Errors thrown by timer callbacks, with their owner: the run reports them. */
  readonly thrown: Array<{ owner: string; error: unknown }> = [];
  eventsRun = 0;

  /** Milliseconds since the run began. */
  get nowMs(): number {
    return this.currentMs;
  }

  // ---- Scheduler (the seam the cluster runtime uses) ----

  every(intervalMs: number, fn: () => void): () => void {
    const timer = this.add(this.owner, intervalMs, fn, intervalMs);
    return () => this.cancel(timer);
  }

  after(delayMs: number, fn: () => void): () => void {
    const timer = this.add(this.owner, delayMs, fn, null);
    return () => this.cancel(timer);
  }

  immediate(fn: () => void): () => void {
    return this.after(0, fn);
  }

  monotonicMs(): number {
    return this.currentMs;
  }

  // ---- the simulator's own scheduling ----

  /** Runs `fn` as `owner` after `delayMs`. */
  at(owner: string, delayMs: number, fn: () => void): () => void {
    const timer = this.add(owner, delayMs, fn, null);
    return () => this.cancel(timer);
  }

  /** Drops every timer of `owner`: its process is gone. */
  killOwner(owner: string): void {
    const live = this.liveByOwner.get(owner);
    if (live === undefined) return;
    for (const timer of live) timer.isCancelled = true;
    this.liveByOwner.delete(owner);
  }

  /** Runs timers in order until none is due at or before `untilMs` (or `isDone` says so); time is then `untilMs`. */
  async runUntil(untilMs: number, isDone: () => boolean = () => false): Promise<void> {
    for (;;) {
      if (isDone()) return;
      const next = this.queue.peek();
      if (next === undefined || next.atMs > untilMs) break;
      this.queue.pop();
      if (next.isCancelled) {
        this.forget(next);
        continue;
      }
      this.currentMs = Math.max(this.currentMs, next.atMs);
      if (next.intervalMs !== null) {
        next.atMs = this.currentMs + Math.max(1, next.intervalMs);
        next.seq = this.nextSeq++;
        this.queue.push(next);
      } else {
        this.forget(next);
      }
      this.owner = next.owner;
      this.eventsRun++;
      try {
        next.fn();
      } catch (error) {
        this.thrown.push({ owner: next.owner, error });
      }
      // Every promise continuation the callback caused runs before the host's next macrotask.
      await new Promise<void>((resolve) => hostSetImmediate(resolve));
      this.owner = 'sim';
    }
    this.currentMs = Math.max(this.currentMs, untilMs);
  }

  private add(owner: string, delayMs: number, fn: () => void, intervalMs: number | null): VirtualTimer {
    const timer: VirtualTimer = {
      atMs: this.currentMs + Math.max(0, delayMs),
      seq: this.nextSeq++,
      owner,
      fn,
      intervalMs,
      isCancelled: false,
    };
    this.queue.push(timer);
    let live = this.liveByOwner.get(owner);
    if (live === undefined) this.liveByOwner.set(owner, (live = new Set()));
    live.add(timer);
    return timer;
  }

  private cancel(timer: VirtualTimer): void {
    timer.isCancelled = true;
    this.forget(timer);
  }

  private forget(timer: VirtualTimer): void {
    this.liveByOwner.get(timer.owner)?.delete(timer);
  }
}
