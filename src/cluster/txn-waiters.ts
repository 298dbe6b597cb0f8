/**
 * Callers waiting for their transactions to be applied, keyed by txnId. A txnId may be waited on
 * more than once (a retry while the first attempt is still in flight): the first apply of that
 * txnId answers every waiter, because the apply step answers a repeat with the first outcome.
 */
import type { Scheduler } from '../base/scheduler.js';
import type { TxnOutcome } from '../storage/txn.js';

export interface AppliedTxn {
  readonly outcome: TxnOutcome;
  /** The Raft index of the entry that carried it. */
  readonly entryIndex: number;
}

interface Waiter {
  resolve(applied: AppliedTxn): void;
  reject(error: Error): void;
}

export class TxnWaiters {
  private readonly waiters = new Map<string, Waiter[]>();

  wait(txnId: string): { promise: Promise<AppliedTxn>; cancel(): void } {
    let waiter: Waiter | undefined;
    const promise = new Promise<AppliedTxn>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    const list = this.waiters.get(txnId) ?? [];
    list.push(waiter as Waiter);
    this.waiters.set(txnId, list);
    const cancel = (): void => {
      const current = this.waiters.get(txnId);
      if (current === undefined) return;
      const remaining = current.filter((w) => w !== waiter);
      if (remaining.length === 0) this.waiters.delete(txnId);
      else this.waiters.set(txnId, remaining);
    };
    return { promise, cancel };
  }

  has(txnId: string): boolean {
    return this.waiters.has(txnId);
  }

  resolve(txnId: string, applied: AppliedTxn): void {
    const list = this.waiters.get(txnId);
    if (list === undefined) return;
    this.waiters.delete(txnId);
    for (const waiter of list) waiter.resolve(applied);
  }

  reject(txnId: string, error: Error): void {
    const list = this.waiters.get(txnId);
    if (list === undefined) return;
    this.waiters.delete(txnId);
    for (const waiter of list) waiter.reject(error);
  }

  /** Fails every waiter (leadership lost, node stopping); each caller decides whether to retry. */
  rejectAll(error: (txnId: string) => Error): void {
    const all = [...this.waiters];
    this.waiters.clear();
    for (const [txnId, list] of all) for (const waiter of list) waiter.reject(error(txnId));
  }

  get size(): number {
    return this.waiters.size;
  }
}

/** Callers waiting for the local applied index to reach a point. */
export class AppliedIndexWaiters {
  private waiting: { index: number; resolve(): void }[] = [];

  constructor(
    private readonly appliedIndex: () => number,
    private readonly scheduler: Scheduler,
  ) {}

  /** Resolves once the applied index is at least `index`; false if `timeoutMs` passed first. */
  waitFor(index: number, timeoutMs: number): Promise<boolean> {
    if (this.appliedIndex() >= index) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const entry = {
        index,
        resolve: () => {
          cancelTimer();
          resolve(true);
        },
      };
      const cancelTimer = this.scheduler.after(timeoutMs, () => {
        this.waiting = this.waiting.filter((w) => w !== entry);
        resolve(false);
      });
      this.waiting.push(entry);
    });
  }

  /** Whether anyone waits for an applied index now. */
  get isWaiting(): boolean {
    return this.waiting.length > 0;
  }

  /** Call after every apply step. */
  notify(): void {
    if (this.waiting.length === 0) return;
    const applied = this.appliedIndex();
    const ready = this.waiting.filter((w) => w.index <= applied);
    if (ready.length === 0) return;
    this.waiting = this.waiting.filter((w) => w.index > applied);
    for (const w of ready) w.resolve();
  }
}
