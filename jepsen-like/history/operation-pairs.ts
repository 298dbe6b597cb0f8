import { assert } from '../../src/base/assert.js';
import type { HistoryOp } from './history-op.js';

/**
 * An invocation together with its completion. An invocation that never completed (the run ended
 * first) is treated exactly like one that completed with info: its outcome is unknown.
 */
export interface OperationPair {
  readonly process: number;
  readonly f: string;
  readonly invoke: HistoryOp;
  readonly outcome: 'ok' | 'fail' | 'info';
  /** The completion, if there was one. */
  readonly completion: HistoryOp | undefined;
  readonly invokeMs: number;
  /** When the operation completed; Infinity when it never did. */
  readonly completeMs: number;
  /** Completion index in the history; Infinity when it never completed. */
  readonly completeIndex: number;
}

/**
 * Pairs every invocation with the next completion of the same process. A process has at most one
 * operation outstanding, so this pairing is exact; a history that breaks that rule is malformed.
 */
export function pairOperations(history: readonly HistoryOp[]): OperationPair[] {
  const open = new Map<number, HistoryOp>();
  const pairs: OperationPair[] = [];
  const slotOf = new Map<HistoryOp, number>();
  for (const op of history) {
    if (op.type === 'invoke') {
      assert(
        !open.has(op.process),
        `process ${op.process} invoked op ${op.index} with op ${open.get(op.process)?.index} still open`,
      );
      open.set(op.process, op);
      slotOf.set(op, pairs.length);
      pairs.push(unfinished(op));
      continue;
    }
    const invoke = open.get(op.process);
    assert(invoke !== undefined, `completion ${op.index} of process ${op.process} has no invocation`);
    assert(invoke.f === op.f, `completion ${op.index} is ${op.f} but its invocation is ${invoke.f}`);
    open.delete(op.process);
    const slot = slotOf.get(invoke);
    assert(slot !== undefined);
    pairs[slot] = {
      process: op.process,
      f: op.f,
      invoke,
      outcome: op.type,
      completion: op,
      invokeMs: invoke.timeMs,
      completeMs: op.timeMs,
      completeIndex: op.index,
    };
  }
  return pairs;
}

function unfinished(invoke: HistoryOp): OperationPair {
  return {
    process: invoke.process,
    f: invoke.f,
    invoke,
    outcome: 'info',
    completion: undefined,
    invokeMs: invoke.timeMs,
    completeMs: Number.POSITIVE_INFINITY,
    completeIndex: Number.POSITIVE_INFINITY,
  };
}
