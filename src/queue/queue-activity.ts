/**
 * Per-queue counts of what receives did on this node since it started: messages moved to a
 * dead-letter queue, dead-letter moves skipped (the target missing or of the wrong type: the
 * message stays and is delivered) and receives that found nothing. They feed /metrics. A count is
 * taken when its transaction settles (committed, or answered without writes), so a receive that
 * lost to a conflict and was rebuilt is counted once, as it finally happened.
 */

export interface QueueActivityCounts {
  deadLettered: number;
  redriveSkipped: number;
  emptyReceives: number;
}

export class QueueActivity {
  private readonly byQueue = new Map<string, QueueActivityCounts>();

  noteDeadLettered(queueName: string): void {
    this.countsOf(queueName).deadLettered++;
  }

  noteRedriveSkipped(queueName: string): void {
    this.countsOf(queueName).redriveSkipped++;
  }

  noteEmptyReceive(queueName: string): void {
    this.countsOf(queueName).emptyReceives++;
  }

  /** Every queue with a count, by name; the figures are copies. */
  snapshot(): Map<string, QueueActivityCounts> {
    return new Map([...this.byQueue].map(([name, counts]) => [name, { ...counts }]));
  }

  private countsOf(queueName: string): QueueActivityCounts {
    let counts = this.byQueue.get(queueName);
    if (counts === undefined) {
      counts = { deadLettered: 0, redriveSkipped: 0, emptyReceives: 0 };
      this.byQueue.set(queueName, counts);
    }
    return counts;
  }
}
