/**
 * Transaction attempts of queue operations that did not settle and were built again, by operation
 * and reason, on this node (for /metrics): a conflict (a key the attempt read or wrote changed
 * before it applied), too-old (its view fell below the collection watermark), clock-skew, or a
 * stale local view whose answer or error had to be derived again on a linearizable one. Operators
 * read contention here; a rise in DeleteMessage conflicts, say, means two consumers handle the same
 * messages.
 */
export interface TxnRetryCount {
  readonly operation: string;
  readonly reason: string;
  readonly count: number;
}

export class TxnRetryCounts {
  /** Operation → reason → attempts built again. */
  private readonly counts = new Map<string, Map<string, number>>();

  note(operation: string, reason: string): void {
    let byReason = this.counts.get(operation);
    if (byReason === undefined) {
      byReason = new Map();
      this.counts.set(operation, byReason);
    }
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }

  snapshot(): TxnRetryCount[] {
    const out: TxnRetryCount[] = [];
    for (const [operation, byReason] of this.counts)
      for (const [reason, count] of byReason) out.push({ operation, reason, count });
    return out;
  }
}
