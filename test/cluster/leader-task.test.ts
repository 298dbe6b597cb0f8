import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaderTask, type LeadershipSource } from '../../src/cluster/leader-task.js';

class FakeNode implements LeadershipSource {
  isStopping = false;
  private leader = false;
  private readonly listeners = new Set<() => void>();
  isLeader(): boolean {
    return this.leader;
  }
  onLeadershipChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  setLeader(isLeader: boolean): void {
    this.leader = isLeader;
    for (const listener of this.listeners) listener();
  }
}

describe('leader task', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs only while the node leads: at once on becoming leader, then every interval, never on a follower', async () => {
    const node = new FakeNode();
    let runs = 0;
    const task = new LeaderTask(node, { intervalMs: 100, run: async () => void runs++, onError: () => {} });
    task.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(runs).toBe(0);
    node.setLeader(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(runs).toBe(4);
    node.setLeader(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(runs).toBe(4);
    await task.stop();
  });

  it('runs again at once, not after the interval, while a run reports more work, and back on the interval after', async () => {
    const node = new FakeNode();
    let runs = 0;
    const backlogRuns = 5;
    const task = new LeaderTask(node, {
      intervalMs: 60_000,
      run: async () => ({ hasMoreWork: ++runs < backlogRuns }),
      onError: () => {},
    });
    task.start();
    node.setLeader(true);
    // 20 ms in all, far below the interval: only the immediate re-runs can happen.
    for (let i = 0; i < 10; i++) await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(backlogRuns);
    for (let i = 0; i < 10; i++) await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(backlogRuns);
    await vi.advanceTimersByTimeAsync(60_000 - 20);
    expect(runs).toBe(backlogRuns + 1);
    await task.stop();
  });

  it('aborts the run in progress when leadership is lost, and never overlaps two runs', async () => {
    const node = new FakeNode();
    const signals: AbortSignal[] = [];
    let release: () => void = () => {};
    const task = new LeaderTask(node, {
      intervalMs: 100,
      run: (signal) => {
        signals.push(signal);
        return new Promise<void>((resolve) => (release = resolve));
      },
      onError: () => {},
    });
    task.start();
    node.setLeader(true);
    await vi.advanceTimersByTimeAsync(350);
    expect(signals).toHaveLength(1);
    node.setLeader(false);
    expect(signals[0]?.aborted).toBe(true);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(task.isRunning).toBe(false);
    await task.stop();
  });

  it('reports a failed run, but not one that failed because it was aborted', async () => {
    const node = new FakeNode();
    const errors: unknown[] = [];
    let attempt = 0;
    const task = new LeaderTask(node, {
      intervalMs: 100,
      run: async (signal) => {
        attempt++;
        if (attempt === 2) node.setLeader(false);
        throw new Error(signal.aborted ? 'aborted' : 'broken');
      },
      onError: (error) => errors.push(error),
    });
    task.start();
    node.setLeader(true);
    await vi.advanceTimersByTimeAsync(0);
    node.setLeader(false);
    node.setLeader(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map((e) => (e as Error).message)).toEqual(['broken']);
    await task.stop();
  });
});
