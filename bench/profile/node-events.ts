// What a node's main thread went through, as timed events an operation trace can be laid beside
// (op-timeline.ts --node-events): V8 collections and stalls of the event loop. Written by the
// preload node-events-on-start.ts as DIR/PID.events.tsv, one event a line:
//   <startEpochMs> <kind> <durationMs>
// kind: gc-minor, gc-major, gc-incremental, gc-weakcb (V8's collections, from perf_hooks), or
// stall: a 10 ms timer that fired this much late, so the main thread ran something else
// (JavaScript, a collection, a native call) for at least that long without looking at its sockets.

export type NodeEventKind = 'gc-minor' | 'gc-major' | 'gc-incremental' | 'gc-weakcb' | 'stall';

export interface NodeEvent {
  readonly kind: NodeEventKind;
  readonly startEpochMs: number;
  readonly durationMs: number;
}

const kinds: ReadonlySet<string> = new Set(['gc-minor', 'gc-major', 'gc-incremental', 'gc-weakcb', 'stall']);

export function nodeEventLine(event: NodeEvent): string {
  return `${event.startEpochMs.toFixed(1)}\t${event.kind}\t${event.durationMs.toFixed(2)}`;
}

/** The events of a file, in start order; lines that are not events (a file cut mid-line) are skipped. */
export function parseNodeEvents(text: string): NodeEvent[] {
  const events: NodeEvent[] = [];
  for (const line of text.split('\n')) {
    const [start, kind, duration, ...rest] = line.split('\t');
    const startEpochMs = Number(start);
    const durationMs = Number(duration);
    if (rest.length > 0 || kind === undefined || !kinds.has(kind)) continue;
    if (!Number.isFinite(startEpochMs) || !(durationMs >= 0)) continue;
    events.push({ kind: kind as NodeEventKind, startEpochMs, durationMs });
  }
  return events.sort((a, b) => a.startEpochMs - b.startEpochMs);
}
