/**
 * The in-memory index of one partition of a standard queue (docs/architecture/queue.md): which messages a
 * receive may take now, in delivery order, without scanning the vis rows in LevelDB.
 *
 * It mirrors the partition's vis rows (one per message: its place in the queue) and state rows
 * (when a received message is visible again) as they are applied on this replica. A message is
 * delivered in enqueue order: its position is where its vis row put it (send time plus delay,
 * then the send's order), and a receive or a visibility change moves the deadline, never the
 * position, so a message whose visibility lapses goes back ahead of messages sent after it, as on
 * SQS. Messages not yet visible wait in a queue by deadline and join the ready queue when it passes;
 * both are mostly-ordered queues (sends arrive in delivery order, deadlines later with every receive).
 *
 * It is never the truth: a receive takes candidates from here and still reads and validates the
 * message's rows in its transaction; a stale entry costs a skip or a conflict, never a wrong
 * delivery. Candidates are taken exclusively ('taken') until the receive releases them, so
 * concurrent receives on this node take disjoint messages.
 */
import { MostlyOrderedQueue } from '../../base/mostly-ordered-queue.js';
import type { GroupRowEvent, PartitionIndexFeed, StateRowEvent, VisRowEvent } from './index-events.js';

export type EntryStatus = 'queued' | 'taken' | 'expired';

export interface IndexedMessage {
  readonly messageId: string;
  /** Delivery position: the first vis row's time and order. */
  readonly rankMs: number;
  /** A standard queue's order: a send counter, always a safe integer. */
  readonly rankOrder: number;
  /** The vis row's own visibleAtMs: with the id it names the row. */
  rowVisibleAtMs: number;
  visibleAtMs: number;
  /** Start of its retention period, when its vis row says (older rows do not). */
  readonly retentionStartMs: number | undefined;
  /** No state row was seen for it (and its vis row says it was never received): there is none to read. */
  isNeverReceived: boolean;
  status: EntryStatus;
  /** Applied batch that created it: a view taken after that batch must see the message. */
  readonly addedInBatch: number;
  /** Bumped at every reschedule: slots with an older stamp are stale. */
  stamp: number;
  /** Deleted by the batch being applied (a put later in the batch revives it: a moved vis row). */
  isDeletedInBatch: boolean;
}

interface QueueSlot {
  readonly message: IndexedMessage;
  readonly stamp: number;
  /** The deadline when the slot was pushed: a queue orders by what its slots held then, never by a field that changes. */
  readonly visibleAtMs: number;
}

export class StandardPartitionIndex implements PartitionIndexFeed {
  private readonly byId = new Map<string, IndexedMessage>();
  private readonly ready = new MostlyOrderedQueue<QueueSlot>((a, b) => isEarlierRank(a.message, b.message));
  private readonly waiting = new MostlyOrderedQueue<QueueSlot>((a, b) => a.visibleAtMs < b.visibleAtMs);
  private readonly deletedInBatch: IndexedMessage[] = [];

  readonly kind = 'standard';
  /** The retention period receives last judged expiry by: a longer one offers expired messages again. */
  retentionSeconds: number | undefined;

  /** Messages a state row was seen for: the only ones that can be in flight. */
  private readonly received = new Set<IndexedMessage>();
  /** The latest time a caller asked about: a message visible by then goes straight to the ready queue. */
  private readyHorizonMs: number;

  constructor(readonly loadedAtMs: number) {
    this.readyHorizonMs = loadedAtMs;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Slots held, stale ones included (tests: they stay bounded by the messages). */
  get slotCount(): number {
    return this.ready.size + this.waiting.size;
  }

  applyVis(event: VisRowEvent, batch: number): void {
    const existing = this.byId.get(event.messageId);
    if (event.kind === 'delete') {
      // A delete of a row the entry no longer points at (replayed after a load) changes nothing.
      if (existing === undefined || existing.rowVisibleAtMs !== event.visibleAtMs) return;
      existing.isDeletedInBatch = true;
      this.deletedInBatch.push(existing);
      return;
    }
    if (existing !== undefined) {
      // The same message's vis row again (a row an older layout moved, put back): only the key changes.
      existing.isDeletedInBatch = false;
      existing.rowVisibleAtMs = event.visibleAtMs;
      return;
    }
    const message: IndexedMessage = {
      messageId: event.messageId,
      rankMs: event.visibleAtMs,
      rankOrder: Number(event.order),
      rowVisibleAtMs: event.visibleAtMs,
      visibleAtMs: event.visibleAtMs,
      isNeverReceived: event.isNeverReceived,
      retentionStartMs: event.retentionStartMs,
      status: 'queued',
      addedInBatch: batch,
      stamp: 0,
      isDeletedInBatch: false,
    };
    this.byId.set(message.messageId, message);
    this.schedule(message);
  }

  applyState(event: StateRowEvent): void {
    const message = this.byId.get(event.messageId);
    if (message === undefined) return;
    message.isNeverReceived = false;
    message.visibleAtMs = event.visibleAtMs;
    this.received.add(message);
    if (message.status === 'queued') this.schedule(message);
  }

  applyGroup(_event: GroupRowEvent, _batch: number): void {}

  /**
   * After a build: these messages' vis rows said "never received" and no state row was heard of
   * them, so a receive may skip reading their (absent) state row.
   */
  confirmNeverReceived(messageIds: readonly string[]): void {
    for (const id of messageIds) {
      const message = this.byId.get(id);
      if (message !== undefined && !this.received.has(message)) message.isNeverReceived = true;
    }
  }

  /** Messages received and not yet visible again at `nowMs` (the in-flight limit's count). */
  inFlightCount(nowMs: number): number {
    let count = 0;
    for (const message of this.received) if (message.visibleAtMs > nowMs) count++;
    return count;
  }

  endBatch(): void {
    for (const message of this.deletedInBatch) {
      if (message.isDeletedInBatch && this.byId.get(message.messageId) === message) this.forget(message);
    }
    this.deletedInBatch.length = 0;
  }

  /**
   * The next message a receive may take at `nowMs`, in delivery order; it is 'taken' until
   * released. Messages known to have started their retention period before `expiredBeforeMs` are
   * marked expired on the way, without being offered.
   */
  take(nowMs: number, expiredBeforeMs: number): IndexedMessage | undefined {
    this.promote(nowMs);
    for (;;) {
      const slot = this.ready.pop();
      if (slot === undefined) return undefined;
      if (!this.isCurrent(slot)) continue;
      const { message } = slot;
      if (message.retentionStartMs !== undefined && message.retentionStartMs < expiredBeforeMs) {
        message.status = 'expired';
        continue;
      }
      message.status = 'taken';
      return message;
    }
  }

  /** Gives back a taken message: it is queued again at its (possibly new) deadline. */
  release(message: IndexedMessage): void {
    if (message.status !== 'taken' || this.byId.get(message.messageId) !== message) return;
    message.status = 'queued';
    this.schedule(message);
  }

  /** Past its retention period: never offered again (the reaper deletes its rows, which removes it). */
  markExpired(message: IndexedMessage): void {
    if (this.byId.get(message.messageId) === message) message.status = 'expired';
  }

  /** Expired messages are offered again (the retention period was raised). */
  reviveExpired(): void {
    for (const message of this.byId.values()) {
      if (message.status !== 'expired') continue;
      message.status = 'queued';
      this.schedule(message);
    }
  }

  /** The entry's data row is gone in a view that must have seen it: it is not a message any more. */
  dropPhantom(message: IndexedMessage): void {
    if (this.byId.get(message.messageId) === message) this.forget(message);
  }

  /** The earliest deadline after `nowMs` of a message not yet visible (for long-poll timers). */
  nextVisibleAtMs(nowMs: number): number | undefined {
    this.promote(nowMs);
    for (;;) {
      const slot = this.waiting.peek();
      if (slot === undefined) return undefined;
      if (this.isCurrent(slot)) return slot.visibleAtMs;
      this.waiting.pop();
    }
  }

  /** Whether any message may be taken at `nowMs`. */
  hasReady(nowMs: number): boolean {
    this.promote(nowMs);
    for (;;) {
      const slot = this.ready.peek();
      if (slot === undefined) return false;
      if (this.isCurrent(slot)) return true;
      this.ready.pop();
    }
  }

  private forget(message: IndexedMessage): void {
    this.byId.delete(message.messageId);
    this.received.delete(message);
  }

  private schedule(message: IndexedMessage): void {
    this.dropStaleSlotsIfMany();
    message.stamp++;
    const slot = { message, stamp: message.stamp, visibleAtMs: message.visibleAtMs };
    // Sends and a build push in enqueue order: each push joins the ready queue's ordered run, O(1).
    if (slot.visibleAtMs <= this.readyHorizonMs) this.ready.push(slot);
    else this.waiting.push(slot);
  }

  /**
   * A message deleted while it waits (received with a long visibility timeout, then deleted)
   * leaves a stale slot in the waiting queue until its deadline: at a high rate and a 12-hour
   * timeout, millions. When stale slots outnumber the messages, the queues are rebuilt from the
   * messages (O(n), so amortised O(1) per reschedule).
   */
  private dropStaleSlotsIfMany(): void {
    if (this.ready.size + this.waiting.size <= 2 * this.byId.size + staleSlotsAllowed) return;
    this.ready.clear();
    this.waiting.clear();
    for (const message of this.byId.values()) {
      if (message.status !== 'queued') continue;
      const slot = { message, stamp: message.stamp, visibleAtMs: message.visibleAtMs };
      if (slot.visibleAtMs <= this.readyHorizonMs) this.ready.push(slot);
      else this.waiting.push(slot);
    }
  }

  private promote(nowMs: number): void {
    if (nowMs > this.readyHorizonMs) this.readyHorizonMs = nowMs;
    for (;;) {
      const slot = this.waiting.peek();
      if (slot === undefined || slot.visibleAtMs > nowMs) return;
      this.waiting.pop();
      if (this.isCurrent(slot)) this.ready.push(slot);
    }
  }

  private isCurrent(slot: QueueSlot): boolean {
    const { message } = slot;
    return message.status === 'queued' && message.stamp === slot.stamp && this.byId.get(message.messageId) === message;
  }
}

/** Stale slots tolerated beyond twice the messages before the queues are rebuilt. */
const staleSlotsAllowed = 4_096;

function isEarlierRank(a: IndexedMessage, b: IndexedMessage): boolean {
  if (a.rankMs !== b.rankMs) return a.rankMs < b.rankMs;
  if (a.rankOrder !== b.rankOrder) return a.rankOrder < b.rankOrder;
  return a.messageId < b.messageId;
}
