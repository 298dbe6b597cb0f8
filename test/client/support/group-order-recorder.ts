/**
 * Watches the handlers of a FIFO consumer and records every break of group order it sees: two
 * handlers of one group running at once, a message starting before its group's earlier messages
 * have completed, a message completing out of turn. It also records whether handlers of two
 * different groups ever ran at the same time, the parallelism that group order must keep.
 *
 * A message is named by its group and its index in that group (0, 1, …, in send order, which is
 * SequenceNumber order).
 */
export interface GroupOrderViolation {
  readonly kind: 'overlap' | 'started out of turn' | 'completed out of turn';
  readonly groupId: string;
  readonly index: number;
  /** The group's next index to complete when it happened. */
  readonly expectedIndex: number;
}

export class GroupOrderRecorder {
  readonly violations: GroupOrderViolation[] = [];
  /** True once a handler started while a handler of another group was running. */
  hasGroupsOverlapped = false;
  /** Handlers running now, by group. */
  private readonly runningByGroup = new Map<string, number>();
  /** Next index each group must complete. */
  private readonly nextIndexByGroup = new Map<string, number>();

  constructor(private readonly messagesPerGroup: number) {}

  started(groupId: string, index: number): void {
    const expectedIndex = this.nextIndexOf(groupId);
    if ((this.runningByGroup.get(groupId) ?? 0) > 0)
      this.violations.push({ kind: 'overlap', groupId, index, expectedIndex });
    if (index !== expectedIndex) this.violations.push({ kind: 'started out of turn', groupId, index, expectedIndex });
    for (const [otherGroupId, running] of this.runningByGroup) {
      if (otherGroupId !== groupId && running > 0) this.hasGroupsOverlapped = true;
    }
    this.runningByGroup.set(groupId, (this.runningByGroup.get(groupId) ?? 0) + 1);
  }

  /** The handler returned or threw; `isCompleted` when it returned (the message is done). */
  ended(groupId: string, index: number, isCompleted: boolean): void {
    this.runningByGroup.set(groupId, (this.runningByGroup.get(groupId) ?? 1) - 1);
    if (!isCompleted) return;
    const expectedIndex = this.nextIndexOf(groupId);
    if (index !== expectedIndex) this.violations.push({ kind: 'completed out of turn', groupId, index, expectedIndex });
    else this.nextIndexByGroup.set(groupId, expectedIndex + 1);
  }

  /** Groups whose every message has completed in order. */
  finishedGroups(): string[] {
    return [...this.nextIndexByGroup].filter(([, next]) => next >= this.messagesPerGroup).map(([groupId]) => groupId);
  }

  private nextIndexOf(groupId: string): number {
    return this.nextIndexByGroup.get(groupId) ?? 0;
  }
}
