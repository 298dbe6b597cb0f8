// The operation trace a bench run writes with --op-trace DIR: one line per completed client
// operation (a produce call, or a consume: a receive and the delete of what it got), so a cell's
// latency can be read over time instead of as one histogram (op-timeline.ts draws it). A
// histogram says how slow the slowest operations were; the trace says when they were, and
// whether they came together (a stalled server) or one at a time.
//
// File format (tab-separated, one file per cell and system):
//   # window <startEpochMs> <endEpochMs>      the measured window, once, first
//   <startEpochMs> <kind> <durationMs> <messages>
// kind is produce or consume; an empty receive is a consume of 0 messages.

export type TracedOpKind = 'produce' | 'consume';

export interface TracedOp {
  readonly startEpochMs: number;
  readonly kind: TracedOpKind;
  readonly durationMs: number;
  readonly messages: number;
}

export interface OpTrace {
  readonly windowStartEpochMs: number;
  readonly windowEndEpochMs: number;
  /** In start order. */
  readonly ops: TracedOp[];
}

/** An operation started at `startMs` on performance.now()'s clock, as one trace line. */
export function opTraceLine(startMs: number, kind: TracedOpKind, durationMs: number, messages: number): string {
  return `${(performance.timeOrigin + startMs).toFixed(1)}\t${kind}\t${durationMs.toFixed(2)}\t${messages}`;
}

export function formatOpTrace(windowStartEpochMs: number, windowEndEpochMs: number, lines: readonly string[]): string {
  const sorted = [...lines].sort((a, b) => parseFloat(a) - parseFloat(b));
  return [`# window ${windowStartEpochMs} ${windowEndEpochMs}`, ...sorted].join('\n') + '\n';
}

export class OpTraceFormatError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'OpTraceFormatError';
  }
}

export function parseOpTrace(text: string): OpTrace {
  const lines = text.split('\n');
  const header = /^# window (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(lines[0] ?? '');
  if (header === null) throw new OpTraceFormatError(1, 'expected "# window <startEpochMs> <endEpochMs>"');
  const ops: TracedOp[] = [];
  lines.slice(1).forEach((line, i) => {
    if (line === '') return;
    const [start, kind, duration, messages, ...rest] = line.split('\t');
    const op = {
      startEpochMs: Number(start),
      kind: kind as TracedOpKind,
      durationMs: Number(duration),
      messages: Number(messages),
    };
    if (
      rest.length > 0 ||
      (kind !== 'produce' && kind !== 'consume') ||
      !Number.isFinite(op.startEpochMs) ||
      !(op.durationMs >= 0) ||
      !Number.isInteger(op.messages) ||
      op.messages < 0
    )
      throw new OpTraceFormatError(
        i + 2,
        `not "<startEpochMs>\\t<produce|consume>\\t<durationMs>\\t<messages>": ${line}`,
      );
    ops.push(op);
  });
  ops.sort((a, b) => a.startEpochMs - b.startEpochMs);
  return { windowStartEpochMs: Number(header[1]), windowEndEpochMs: Number(header[2]), ops };
}
