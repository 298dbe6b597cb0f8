/**
 * What real FIFO consumers saw, checked per message group against the SequenceNumbers the sends
 * returned. A delivery of message m is out of order when some earlier message of m's group (by
 * SequenceNumber) had no delete started before the receive that returned m finished — unless the
 * same receive returned it first. Deletes are noted when they start, so a delete still in flight
 * never counts against the server; a delete that was a no-op (its handle had gone stale) also
 * counts as started, which can only hide a violation, never invent one.
 */
export interface SentMessage {
  readonly messageId: string;
  readonly groupId: string;
  readonly sequenceNumber: bigint;
}

export interface DeliveredMessage {
  readonly messageId: string;
  readonly sequenceNumber: string | undefined;
  readonly groupId: string | undefined;
  readonly receiveCount: number;
}

export class FifoOrderTracker {
  private readonly sent = new Map<string, SentMessage>();
  private readonly groups = new Map<string, SentMessage[]>();
  private readonly deleteStarted = new Set<string>();
  private readonly delivered = new Set<string>();
  readonly problems: string[] = [];
  redeliveries = 0;
  deliveries = 0;

  noteSent(message: SentMessage): void {
    this.sent.set(message.messageId, message);
    const group = this.groups.get(message.groupId) ?? [];
    group.push(message);
    group.sort((a, b) => (a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0));
    this.groups.set(message.groupId, group);
  }

  /** Call when a receive has answered, with its messages in the order it returned them. */
  noteReceived(batch: readonly DeliveredMessage[]): void {
    const earlierInBatch = new Set<string>();
    for (const message of batch) {
      this.deliveries++;
      if (message.receiveCount > 1) this.redeliveries++;
      this.delivered.add(message.messageId);
      const sent = this.sent.get(message.messageId);
      if (sent === undefined) {
        this.problems.push(`${message.messageId} was delivered but never sent`);
        continue;
      }
      // Compared as numbers: AWS returns SequenceNumber as a fixed-width decimal string.
      if (
        message.sequenceNumber === undefined ||
        BigInt(message.sequenceNumber) !== sent.sequenceNumber ||
        message.groupId !== sent.groupId
      ) {
        this.problems.push(
          `${message.messageId} came back as ${message.groupId}/${message.sequenceNumber}, sent as ${sent.groupId}/${sent.sequenceNumber}`,
        );
      }
      for (const earlier of this.groups.get(sent.groupId) ?? []) {
        if (earlier.sequenceNumber >= sent.sequenceNumber) break;
        if (this.deleteStarted.has(earlier.messageId) || earlierInBatch.has(earlier.messageId)) continue;
        this.problems.push(
          `${sent.groupId}: ${sent.sequenceNumber} was delivered while ${earlier.sequenceNumber} was not deleted`,
        );
      }
      earlierInBatch.add(message.messageId);
    }
  }

  /** Call before sending the DeleteMessage(Batch) request. */
  noteDeleteStarted(messageId: string): void {
    this.deleteStarted.add(messageId);
  }

  get sentCount(): number {
    return this.sent.size;
  }

  get deletedCount(): number {
    return this.deleteStarted.size;
  }

  undelivered(): string[] {
    return [...this.sent.keys()].filter((id) => !this.delivered.has(id));
  }
}
