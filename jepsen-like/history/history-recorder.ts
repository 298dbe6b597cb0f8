import { assert } from '../../src/base/assert.js';
import type { HistoryOp, OpType } from './history-op.js';

/** Where recorded operations go as they happen (a file, or nowhere). */
export interface HistorySink {
  append(op: HistoryOp): void;
}

/** A monotonic millisecond source; the runner passes one that starts at zero with the run. */
export type MonotonicMs = () => number;

/**
 * Records a run's history as it happens, in one total order, and hands out process ids. A client
 * holds a process id; when one of its operations completes with info, the recorder retires that id
 * and the client continues under a fresh one, so that no process ever has two operations whose
 * order is unknown (Jepsen's rule).
 */
export class HistoryRecorder {
  private readonly ops: HistoryOp[] = [];
  private readonly openByProcess = new Map<number, HistoryOp>();
  private nextProcess = 0;

  constructor(
    private readonly nowMs: MonotonicMs,
    private readonly sink: HistorySink | undefined = undefined,
  ) {}

  newProcess(): number {
    return this.nextProcess++;
  }

  invoke(process: number, f: string, value: unknown, node?: string): HistoryOp {
    assert(!this.openByProcess.has(process), `process ${process} already has an operation in flight`);
    const op = this.push({ process, type: 'invoke', f, value, ...(node === undefined ? {} : { node }) });
    this.openByProcess.set(process, op);
    return op;
  }

  /**
   * Completes the open operation of `process`. Returns the process id the client must use next:
   * the same one after ok or fail, a new one after info.
   */
  complete(process: number, type: Exclude<OpType, 'invoke'>, value: unknown, error?: string): number {
    const invoke = this.openByProcess.get(process);
    assert(invoke !== undefined, `process ${process} has no operation in flight`);
    this.openByProcess.delete(process);
    this.push({
      process,
      type,
      f: invoke.f,
      value,
      ...(invoke.node === undefined ? {} : { node: invoke.node }),
      ...(error === undefined ? {} : { error }),
    });
    return type === 'info' ? this.newProcess() : process;
  }

  history(): readonly HistoryOp[] {
    return this.ops;
  }

  private push(fields: Omit<HistoryOp, 'index' | 'timeMs'>): HistoryOp {
    const op: HistoryOp = { index: this.ops.length, timeMs: this.nowMs(), ...fields };
    this.ops.push(op);
    this.sink?.append(op);
    return op;
  }
}
