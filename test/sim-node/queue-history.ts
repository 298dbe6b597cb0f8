/**
 * What the simulated clients did and saw, at the SQS level: every send, receive, delete, change of
 * visibility and purge, when it was issued, when (and whether) it was answered. The queue-level
 * checkers (queue-checkers.ts) judge the run from this alone. Bodies are unique per run, so a body
 * names one message.
 */

export type Outcome = 'pending' | 'ok' | 'failed';

export interface SendRecord {
  readonly body: string;
  readonly queue: string;
  readonly group: string | null;
  readonly node: string;
  readonly issuedMs: number;
  doneMs: number | null;
  outcome: Outcome;
}

export interface ReceivedCopy {
  readonly body: string;
  readonly receiptHandle: string;
}

export interface ReceiveRecord {
  readonly id: number;
  readonly queue: string;
  readonly node: string;
  readonly issuedMs: number;
  readonly visibilityTimeoutMs: number;
  readonly isDrain: boolean;
  doneMs: number | null;
  outcome: Outcome;
  messages: ReceivedCopy[];
}

export interface DeleteRecord {
  readonly body: string;
  readonly queue: string;
  readonly receiveId: number;
  readonly node: string;
  readonly issuedMs: number;
  doneMs: number | null;
  /** refused: the service answered this entry with an error (nothing deleted). */
  outcome: Outcome | 'refused';
}

export interface VisibilityChangeRecord {
  readonly body: string;
  readonly issuedMs: number;
}

export interface PurgeRecord {
  readonly queue: string;
  readonly issuedMs: number;
  /** When it was answered (null: not, or not yet); it may have taken effect any time until then. */
  doneMs: number | null;
}

export class QueueHistory {
  readonly sends = new Map<string, SendRecord>();
  readonly receives: ReceiveRecord[] = [];
  readonly deletes: DeleteRecord[] = [];
  readonly purges: PurgeRecord[] = [];
  readonly visibilityChanges: VisibilityChangeRecord[] = [];
  /**
   * Spans during which some node's wall clock was off (from a jump until every clock was right
   * again; toMs null: until the end). A hold's length is judged on the leader's clock, so a jump
   * forward may end it early: the checkers that time holds ignore what overlaps these spans.
   */
  readonly clockSkewSpans: Array<{ fromMs: number; toMs: number | null }> = [];

  /** Whether [fromMs, toMs] overlaps a span of clock skew. */
  isClockSkewedDuring(fromMs: number, toMs: number): boolean {
    return this.clockSkewSpans.some((span) => span.fromMs <= toMs && (span.toMs === null || span.toMs >= fromMs));
  }
  private nextReceiveId = 1;

  newReceive(
    queue: string,
    node: string,
    issuedMs: number,
    visibilityTimeoutMs: number,
    isDrain: boolean,
  ): ReceiveRecord {
    const record: ReceiveRecord = {
      id: this.nextReceiveId++,
      queue,
      node,
      issuedMs,
      visibilityTimeoutMs,
      isDrain,
      doneMs: null,
      outcome: 'pending',
      messages: [],
    };
    this.receives.push(record);
    return record;
  }
}
