/**
 * The in-memory index of one partition of a FIFO queue (docs/architecture/queue.md): which message groups a
 * receive may take now, without scanning the vis rows in LevelDB.
 *
 * It mirrors the partition's group rows (a group's messages in SequenceNumber order), vis rows
 * (when each message is first visible) and state rows (when a received message is visible again)
 * as they are applied on this replica. A group is available when
 * its head — its first message not known to be expired — is visible; groups are offered in the
 * order they became available (the head's visibility time, then its sequence number), so a group
 * that was just received from and whose message came back goes behind groups that were waiting.
 *
 * It only nominates groups: the receive reads the group's rows in its own view to claim the head
 * and its successors (claim-messages.ts), so a stale index costs a skip, never an order violation.
 * A group is taken exclusively until released, so concurrent receives on this node take disjoint
 * groups.
 */
import { MinHeap } from '../../base/min-heap.js';
import type { EntryStatus } from './standard-partition-index.js';
import type { GroupRowEvent, PartitionIndexFeed, StateRowEvent, VisRowEvent } from './index-events.js';

interface GroupMember {
  readonly sequence: bigint;
  readonly messageId: string;
}

export interface IndexedGroup {
  readonly groupId: string;
  /** Members in SequenceNumber order. */
  readonly members: GroupMember[];
  status: Exclude<EntryStatus, 'expired'>;
  /** When the head is visible; undefined while the head's vis row is unknown. */
  availableAtMs: number | undefined;
  headSequence: bigint;
  stamp: number;
}

interface MessageVisibility {
  /** The vis row's own visibleAtMs: with the id it names the row. */
  rowVisibleAtMs: number;
  readonly retentionStartMs: number | undefined;
  visibleAtMs: number;
  isReceived: boolean;
  isDeletedInBatch: boolean;
}

interface HeapSlot {
  readonly group: IndexedGroup;
  readonly stamp: number;
  readonly availableAtMs: number;
  readonly headSequence: bigint;
}

export class FifoPartitionIndex implements PartitionIndexFeed {
  private readonly groups = new Map<string, IndexedGroup>();
  private readonly visibility = new Map<string, MessageVisibility>();
  private readonly groupOf = new Map<string, string>();
  private readonly expired = new Set<string>();
  private readonly heap = new MinHeap<HeapSlot>(
    (a, b) =>
      a.availableAtMs < b.availableAtMs || (a.availableAtMs === b.availableAtMs && a.headSequence < b.headSequence),
  );
  private readonly dirtyGroups = new Set<IndexedGroup>();
  private readonly deletedVisibility: string[] = [];

  readonly kind = 'fifo';
  /** The retention period receives last judged expiry by: a longer one offers expired messages again. */
  retentionSeconds: number | undefined;

  constructor(readonly loadedAtMs: number) {}

  get size(): number {
    return this.groupOf.size;
  }

  applyVis(event: VisRowEvent, _batch: number): void {
    const current = this.visibility.get(event.messageId);
    if (event.kind === 'delete') {
      if (current === undefined || current.rowVisibleAtMs !== event.visibleAtMs) return;
      current.isDeletedInBatch = true;
      this.deletedVisibility.push(event.messageId);
    } else if (current === undefined) {
      this.visibility.set(event.messageId, {
        rowVisibleAtMs: event.visibleAtMs,
        retentionStartMs: event.retentionStartMs,
        visibleAtMs: event.visibleAtMs,
        isReceived: !event.isNeverReceived,
        isDeletedInBatch: false,
      });
    } else {
      // The same message's vis row again (a row an older layout moved, put back): only the key changes.
      current.rowVisibleAtMs = event.visibleAtMs;
      current.isDeletedInBatch = false;
    }
    this.markDirtyByMessage(event.messageId);
  }

  applyState(event: StateRowEvent): void {
    const current = this.visibility.get(event.messageId);
    if (current === undefined) return;
    current.visibleAtMs = event.visibleAtMs;
    current.isReceived = true;
    this.markDirtyByMessage(event.messageId);
  }

  inFlightCount(nowMs: number): number {
    let count = 0;
    for (const visibility of this.visibility.values())
      if (visibility.isReceived && visibility.visibleAtMs > nowMs) count++;
    return count;
  }

  applyGroup(event: GroupRowEvent, _batch: number): void {
    let group = this.groups.get(event.groupId);
    if (event.kind === 'put') {
      if (group === undefined) {
        group = {
          groupId: event.groupId,
          members: [],
          status: 'queued',
          availableAtMs: undefined,
          headSequence: 0n,
          stamp: 0,
        };
        this.groups.set(event.groupId, group);
      }
      const at = lowerBound(group.members, event.sequence);
      if (group.members[at]?.sequence !== event.sequence)
        group.members.splice(at, 0, { sequence: event.sequence, messageId: event.messageId });
      this.groupOf.set(event.messageId, event.groupId);
    } else {
      if (group === undefined) return;
      const at = lowerBound(group.members, event.sequence);
      const member = group.members[at];
      if (member?.sequence !== event.sequence) return;
      group.members.splice(at, 1);
      this.groupOf.delete(member.messageId);
      this.expired.delete(member.messageId);
    }
    this.dirtyGroups.add(group);
  }

  endBatch(): void {
    for (const messageId of this.deletedVisibility) {
      if (this.visibility.get(messageId)?.isDeletedInBatch === true) this.visibility.delete(messageId);
    }
    this.deletedVisibility.length = 0;
    for (const group of this.dirtyGroups) {
      if (group.members.length === 0) {
        if (this.groups.get(group.groupId) === group) this.groups.delete(group.groupId);
        continue;
      }
      if (group.status === 'queued') this.schedule(group);
    }
    this.dirtyGroups.clear();
  }

  /** The next group a receive may take at `nowMs`; it is 'taken' until released. */
  take(nowMs: number): IndexedGroup | undefined {
    for (;;) {
      const slot = this.heap.peek();
      if (slot === undefined || slot.availableAtMs > nowMs) return undefined;
      this.heap.pop();
      if (!this.isCurrent(slot)) continue;
      slot.group.status = 'taken';
      return slot.group;
    }
  }

  release(group: IndexedGroup): void {
    if (group.status !== 'taken') return;
    group.status = 'queued';
    if (this.groups.get(group.groupId) === group) this.schedule(group);
  }

  /** These messages are past their retention period: their group's head moves past them. */
  markExpired(group: IndexedGroup, messageIds: readonly string[]): void {
    for (const id of messageIds) if (this.groupOf.get(id) === group.groupId) this.expired.add(id);
  }

  reviveExpired(): void {
    const groups = new Set<IndexedGroup>();
    for (const id of this.expired) {
      const group = this.groups.get(this.groupOf.get(id) ?? '');
      if (group !== undefined) groups.add(group);
    }
    this.expired.clear();
    for (const group of groups) if (group.status === 'queued') this.schedule(group);
  }

  nextVisibleAtMs(nowMs: number): number | undefined {
    for (;;) {
      const slot = this.heap.peek();
      if (slot === undefined) return undefined;
      if (!this.isCurrent(slot)) {
        this.heap.pop();
        continue;
      }
      return slot.availableAtMs > nowMs ? slot.availableAtMs : undefined;
    }
  }

  hasReady(nowMs: number): boolean {
    for (;;) {
      const slot = this.heap.peek();
      if (slot === undefined) return false;
      if (this.isCurrent(slot)) return slot.availableAtMs <= nowMs;
      this.heap.pop();
    }
  }

  private markDirtyByMessage(messageId: string): void {
    const group = this.groups.get(this.groupOf.get(messageId) ?? '');
    if (group !== undefined) this.dirtyGroups.add(group);
  }

  /** Works out the group's head and when it is available, and queues a fresh heap slot. */
  private schedule(group: IndexedGroup): void {
    // Stale slots (groups rescheduled or gone) beyond twice the groups: rebuild the heap (amortised O(1)).
    if (this.heap.size > 2 * this.groups.size + 4_096) {
      this.heap.clear();
      for (const other of this.groups.values()) if (other !== group && other.status === 'queued') this.pushSlot(other);
    }
    group.stamp++;
    this.pushSlot(group);
  }

  private pushSlot(group: IndexedGroup): void {
    const head = group.members.find((m) => !this.expired.has(m.messageId));
    const visibility = head === undefined ? undefined : this.visibility.get(head.messageId);
    group.availableAtMs = visibility?.visibleAtMs;
    group.headSequence = head?.sequence ?? 0n;
    if (head === undefined || visibility === undefined) return;
    this.heap.push({ group, stamp: group.stamp, availableAtMs: visibility.visibleAtMs, headSequence: head.sequence });
  }

  private isCurrent(slot: HeapSlot): boolean {
    const { group } = slot;
    return group.status === 'queued' && group.stamp === slot.stamp && this.groups.get(group.groupId) === group;
  }
}

function lowerBound(members: readonly GroupMember[], sequence: bigint): number {
  let lo = 0;
  let hi = members.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((members[mid] as GroupMember).sequence < sequence) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
