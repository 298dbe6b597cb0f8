import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { NemesisFamily } from './fault-spec.js';

/**
 * One line of nemesis.jsonl: a fault starting, healing, being skipped (with the reason), or an
 * error while applying it. `details` carries what was resolved at run time: the nodes, the cut
 * links, the clock offset.
 */
export interface NemesisEvent {
  readonly timeMs: number;
  readonly faultId: number;
  readonly phase: 'start' | 'heal' | 'skipped' | 'error';
  readonly family: NemesisFamily;
  readonly description: string;
  readonly details?: Record<string, unknown>;
}

/** A fault window, for shading plots and for checkers that need what was in force when. */
export interface FaultWindow {
  readonly faultId: number;
  readonly family: NemesisFamily;
  readonly description: string;
  readonly fromMs: number;
  /** Infinity if the fault never healed (the run stopped first). */
  readonly toMs: number;
  readonly details?: Record<string, unknown>;
}

export class NemesisLog {
  private readonly fd: number | undefined;
  private readonly events: NemesisEvent[] = [];

  constructor(path: string | undefined) {
    this.fd = path === undefined ? undefined : openSync(path, 'a');
  }

  append(event: NemesisEvent): void {
    this.events.push(event);
    if (this.fd !== undefined) writeSync(this.fd, `${JSON.stringify(event)}\n`);
  }

  all(): readonly NemesisEvent[] {
    return this.events;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

export function readNemesisLog(path: string): NemesisEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as NemesisEvent);
}

export function faultWindows(events: readonly NemesisEvent[]): FaultWindow[] {
  const open = new Map<number, NemesisEvent>();
  const windows: FaultWindow[] = [];
  for (const event of events) {
    if (event.phase === 'start') open.set(event.faultId, event);
    if (event.phase !== 'heal') continue;
    const start = open.get(event.faultId);
    if (start === undefined) continue;
    open.delete(event.faultId);
    windows.push(toWindow(start, event.timeMs));
  }
  for (const start of open.values()) windows.push(toWindow(start, Number.POSITIVE_INFINITY));
  return windows.sort((a, b) => a.fromMs - b.fromMs);
}

function toWindow(start: NemesisEvent, toMs: number): FaultWindow {
  return {
    faultId: start.faultId,
    family: start.family,
    description: start.description,
    fromMs: start.timeMs,
    toMs,
    ...(start.details === undefined ? {} : { details: start.details }),
  };
}

/**
 * The largest difference between two artificial clock offsets a message's visibility window can
 * see: the most-behind offset plus the most-ahead one, whether or not they were in force at once
 * (a message claimed by a leader whose clock was behind can be claimed again, after that fault
 * healed, by one whose clock is ahead). The visibility and FIFO checkers widen their windows by it
 * (plus the cluster clock's own error).
 */
export function largestClockSpreadMs(events: readonly NemesisEvent[]): number {
  let mostAheadMs = 0;
  let mostBehindMs = 0;
  for (const window of faultWindows(events)) {
    if (window.family !== 'clock') continue;
    const offsetMs = window.details?.['offsetMs'];
    if (typeof offsetMs !== 'number') continue;
    mostAheadMs = Math.max(mostAheadMs, offsetMs);
    mostBehindMs = Math.max(mostBehindMs, -offsetMs);
  }
  return mostAheadMs + mostBehindMs;
}
