/**
 * Who leads, as this node knows it: the core's soft state as of the last Ready, the listeners of
 * its changes (and of membership changes), and waiting for a leader to become known.
 */
import type { Scheduler } from '../base/scheduler.js';
import type { SoftState } from '../raft/types.js';
import { NoLeaderError, NodeStoppingError } from './errors.js';

export interface LeaderWatchParts {
  readonly nodeId: string;
  readonly isStopping: () => boolean;
  /** The node's timers (the runtime's). */
  readonly scheduler: Scheduler;
}

export class LeaderWatch {
  private softState: SoftState = { leader: '', role: 'follower' };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly parts: LeaderWatchParts) {}

  /** The leader's id, or '' when none is known. */
  get leader(): string {
    return this.softState.leader;
  }

  get isLeader(): boolean {
    return this.softState.role === 'leader';
  }

  /** A follower (or learner) that knows its leader: not campaigning, not leading. */
  get isFollowing(): boolean {
    return this.softState.role === 'follower' && this.softState.leader !== '';
  }

  /** Records a Ready's soft state and returns the one before it; listeners hear of it at notify(). */
  update(softState: SoftState): SoftState {
    const previous = this.softState;
    this.softState = softState;
    return previous;
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The leader's id, waiting up to `timeoutMs` for one to be known. */
  waitForLeader(timeoutMs: number): Promise<string> {
    if (this.softState.leader !== '') return Promise.resolve(this.softState.leader);
    if (this.parts.isStopping()) return Promise.reject(new NodeStoppingError(this.parts.nodeId));
    return new Promise<string>((resolve, reject) => {
      const cancelTimer = this.parts.scheduler.after(timeoutMs, () => {
        unsubscribe();
        reject(new NoLeaderError(this.parts.nodeId, timeoutMs));
      });
      const unsubscribe = this.onChange(() => {
        if (this.softState.leader === '') return;
        cancelTimer();
        unsubscribe();
        resolve(this.softState.leader);
      });
    });
  }
}
