/**
 * The history model, after Jepsen's: every operation a client performs is recorded twice, once
 * when it is invoked and once when it completes. A completion is `ok` (it happened, with this
 * result), `fail` (it definitely did not happen) or `info` (the outcome is unknown: a timeout, a
 * reset connection, a 5xx). Checkers must allow an info operation to have happened or not.
 */
export type OpType = 'invoke' | 'ok' | 'fail' | 'info';

export interface HistoryOp {
  /** Position in the history, from 0; completions always come after their invocation. */
  readonly index: number;
  /** The logical client. A process whose operation ended in info is retired and never reused. */
  readonly process: number;
  readonly type: OpType;
  /** The operation's function, e.g. 'send', 'receive', 'delete', 'create-queue'. */
  readonly f: string;
  /** For an invoke, the arguments; for a completion, the result (ok) or what is known (fail, info). */
  readonly value: unknown;
  /** Monotonic milliseconds since the start of the run. */
  readonly timeMs: number;
  /** The node the client addressed, when the workload talks to one node at a time. */
  readonly node?: string;
  /** For fail and info: why, in words (an error name and message). */
  readonly error?: string;
}

export function isCompletion(op: HistoryOp): boolean {
  return op.type !== 'invoke';
}
