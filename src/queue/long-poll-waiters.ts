/**
 * Long-poll waiters, parked per queue on the node that took the request. One executor.onApplied
 * listener looks at every applied write: a write into a waiting queue's meta or group index, a
 * vis row at or before now, or a state row that makes a message visible by now wakes that queue's
 * waiters; one in the future only moves their timer earlier. A woken waiter runs one receive attempt, which re-reads meta and generation
 * (docs/TRAPS.md, trap 3). Nothing re-scans in a loop: every scan follows an applied write or a timer.
 */
import { bytesEqual } from '../storage/key-codec.js';
import type { TxnExecutor, TxnWrite } from '../storage/txn.js';
import { isQueueMetaKey, parseMessageRowKey, queueKeys } from './layout/key-layout.js';
import { visibleAtMsOfReceiveState } from './layout/receive-state.js';
import type { QueueScheduler } from './queue-api.js';

export class Waiter {
  /** Set by any relevant applied write since the last `reset()`: the caller must scan again. */
  isDirty = false;
  private wake: (() => void) | undefined;
  private hintMs: number | undefined;

  reset(): void {
    this.isDirty = false;
    this.hintMs = undefined;
  }

  notify(): void {
    this.isDirty = true;
    this.wake?.();
  }

  /** A row becomes visible at `visibleAtMs`: wake then at the latest. */
  hint(visibleAtMs: number): void {
    if (this.hintMs === undefined || visibleAtMs < this.hintMs) this.hintMs = visibleAtMs;
    this.wake?.();
  }

  /**
   * Resolves on the next notify, at `untilMs` (cluster time), at an earlier hinted time, or when
   * `signal` aborts — whichever comes first.
   */
  async waitUntil(
    untilMs: number,
    executor: TxnExecutor,
    scheduler: QueueScheduler,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (this.isDirty || signal?.aborted === true) return;
    await new Promise<void>((resolve) => {
      let cancelTimer: (() => void) | undefined;
      let timerAtMs = Number.POSITIVE_INFINITY;
      const finish = () => {
        cancelTimer?.();
        signal?.removeEventListener('abort', finish);
        this.wake = undefined;
        resolve();
      };
      const arm = () => {
        const targetMs = Math.min(untilMs, this.hintMs ?? Number.POSITIVE_INFINITY);
        if (targetMs >= timerAtMs) return;
        cancelTimer?.();
        timerAtMs = targetMs;
        cancelTimer = scheduler.setTimerMs(Math.max(0, targetMs - executor.nowMs()), finish);
      };
      this.wake = () => {
        if (this.isDirty) finish();
        else arm();
      };
      signal?.addEventListener('abort', finish, { once: true });
      arm();
    });
  }
}

export class LongPollWaiters {
  private readonly byQueue = new Map<string, { prefix: Uint8Array; waiters: Set<Waiter> }>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly executor: TxnExecutor,
    readonly scheduler: QueueScheduler,
  ) {}

  get waitingCount(): number {
    let count = 0;
    for (const entry of this.byQueue.values()) count += entry.waiters.size;
    return count;
  }

  add(queueName: string): Waiter {
    const waiter = new Waiter();
    let entry = this.byQueue.get(queueName);
    if (entry === undefined) {
      entry = { prefix: queueKeys.queuePrefix(queueName).gte, waiters: new Set() };
      this.byQueue.set(queueName, entry);
    }
    entry.waiters.add(waiter);
    this.unsubscribe ??= this.executor.onApplied((writes) => this.onApplied(writes));
    return waiter;
  }

  remove(queueName: string, waiter: Waiter): void {
    const entry = this.byQueue.get(queueName);
    if (entry === undefined) return;
    entry.waiters.delete(waiter);
    if (entry.waiters.size === 0) this.byQueue.delete(queueName);
    if (this.byQueue.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  /** Every waiter of `queueName` looks again (something they could not hear of changed). */
  notifyQueue(queueName: string): void {
    for (const waiter of this.byQueue.get(queueName)?.waiters ?? []) waiter.notify();
  }

  close(): void {
    for (const entry of this.byQueue.values()) for (const waiter of entry.waiters) waiter.notify();
    this.byQueue.clear();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private onApplied(writes: readonly TxnWrite[]): void {
    if (this.byQueue.size === 0) return;
    const nowMs = this.executor.nowMs();
    for (const write of writes) {
      for (const entry of this.byQueue.values()) {
        if (!startsWith(write.key, entry.prefix)) continue;
        const event = classify(write, nowMs);
        for (const waiter of entry.waiters) {
          if (event.kind === 'wake') waiter.notify();
          else if (event.kind === 'hint') waiter.hint(event.visibleAtMs);
        }
      }
    }
  }
}

type KeyEvent = { kind: 'wake' } | { kind: 'hint'; visibleAtMs: number } | { kind: 'ignore' };

/**
 * ("q", name, "meta") | ("q", name, "g", gen, "vis" | "group" | "state", …): a message sent (vis),
 * a group that moved on (group), a received message whose visibility changed (state: the time is
 * in the row's value; a delete goes with the message's own).
 */
function classify(write: TxnWrite, nowMs: number): KeyEvent {
  const row = parseMessageRowKey(write.key);
  if (row === undefined) return isQueueMetaKey(write.key) ? { kind: 'wake' } : { kind: 'ignore' };
  if (row.family === 'group') return { kind: 'wake' };
  let visibleAtMs: number | undefined;
  if (row.family === 'vis') visibleAtMs = row.visibleAtMs;
  else if (row.family === 'state' && write.kind === 'put')
    visibleAtMs = visibleAtMsOfReceiveState(write.value) ?? nowMs;
  if (visibleAtMs === undefined) return { kind: 'ignore' };
  return visibleAtMs <= nowMs ? { kind: 'wake' } : { kind: 'hint', visibleAtMs };
}

function startsWith(key: Uint8Array, prefix: Uint8Array): boolean {
  return key.length >= prefix.length && bytesEqual(key.subarray(0, prefix.length), prefix);
}
