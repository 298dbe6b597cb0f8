/**
 * One receive attempt: the transaction that claims up to 10 messages (DESIGN.md §4).
 *
 * It scans the vis rows at or before now of every partition, starting at a rotating partition
 * (trap 14), page by page, past rows it cannot deliver — orphans, expired messages, messages of
 * locked FIFO groups — until it has enough messages or has examined
 * raftqLimits.receiveScanRowsMax rows (trap 11). A claim gives the message a new receipt token,
 * counts the receive and moves its vis row to now + visibility timeout; a message that has used
 * up its receives moves to the dead-letter queue in the same transaction. Expired messages are
 * never delivered, whether or not the reaper has removed them (trap 13).
 *
 * FIFO: a vis row only nominates its group. The group's rows are then read in SequenceNumber
 * order from its group index: the head is delivered if visible, then its successors, and the
 * group stops at the first message in flight or not yet visible. Order never depends on
 * visibleAtMs or on ids (trap 16), so sends stamped by a clock that went backwards still deliver
 * in sequence order.
 */
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { decodeKey, keySuccessor } from '../storage/key-codec.js';
import type { KeyValue, ReadView, TxnWrite } from '../storage/txn.js';
import { DeadLetterMover } from './dead-letter-move.js';
import { OverLimitError } from './errors.js';
import { countInFlight } from './message-counts.js';
import { decodeVisibilityState, isExpired, isInFlight, type MessageRecord } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import { VisibilityScanHints, type ScanRecorder } from './visibility-scan-hints.js';
import { firstPageOffset, rotatedRows, singleScanSlot, type ReceiveScanSlot } from './receive-scan-slot.js';
import { partitionVisitOrder } from './partitioning.js';
import type { ReceivedMessage, ReceiveOptions } from './queue-api.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { encodeReceiptHandle } from './receipt-handle.js';
import type { TxnPlan } from './txn-runner.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface ClaimResult {
  readonly messages: ReceivedMessage[];
  /** The queue's ReceiveMessageWaitTimeSeconds as this attempt read it. */
  readonly queueWaitTimeSeconds: number;
  /** When nothing was claimed by a long poll: the earliest future visibleAtMs, for its timer. */
  readonly nextVisibleAtMs?: number;
}

interface AttemptRow {
  readonly expiresAtMs: number;
  readonly claims: ReadonlyArray<{ partition: number; messageId: string; token: string }>;
}

interface ClaimState {
  readonly queue: LoadedQueue;
  readonly view: ReadView;
  readonly nowMs: number;
  readonly visibilityTimeoutMs: number;
  readonly wanted: number;
  readonly readKeys: Uint8Array[];
  readonly writes: TxnWrite[];
  readonly claimed: MessageRecord[];
  readonly mover: DeadLetterMover;
  /** Messages this attempt claims, also listed in claimsInProgress until the attempt ends. */
  readonly reserved: Set<string>;
  readonly recorder: ScanRecorder;
  rowsExamined: number;
}

export class MessageClaimer {
  private readonly partitionStarts = new Map<string, number>();
  /**
   * Messages that receives on this node are claiming right now. Other receives here skip them:
   * they would only conflict, and concurrent consumers on one node would otherwise all race for
   * the same head of the queue. Receives on other nodes are still kept apart by OCC alone.
   */
  private readonly claimsInProgress = new Set<string>();
  private readonly inFlightCounts = new Map<string, { generation: number; atMs: number; count: number }>();

  constructor(
    private readonly ctx: QueueContext,
    private readonly inFlightMessagesMax: number | undefined,
    private readonly scanHints: VisibilityScanHints,
    /** Where this node starts in the head of a standard queue (receive-scan-slot.ts); read per receive, as membership changes. */
    private readonly scanSlot: () => ReceiveScanSlot = () => singleScanSlot,
  ) {}

  async claimOnce(name: string, options: ReceiveOptions): Promise<ClaimResult> {
    const reserved = new Set<string>();
    // Registered before the first view is taken, so every vis write the view misses is recorded.
    const recorder = this.scanHints.begin();
    const releaseReserved = () => {
      for (const id of reserved) this.claimsInProgress.delete(id);
      reserved.clear();
    };
    try {
      return await this.ctx.runner.run('ReceiveMessage', (attempt) => {
        releaseReserved();
        return this.plan(name, options, attempt.view, attempt.nowMs, reserved, recorder);
      }, { staleAnswerWithoutWritesIsAcceptable: true });
    } finally {
      releaseReserved();
      this.scanHints.end(recorder);
    }
  }

  private async plan(
    name: string,
    options: ReceiveOptions,
    view: ReadView,
    nowMs: number,
    reserved: Set<string>,
    recorder: ScanRecorder,
  ): Promise<TxnPlan<ClaimResult>> {
    const queue = await this.ctx.loadQueue(view, name);
    const { config } = queue.meta;
    const base = { queueWaitTimeSeconds: config.receiveWaitTimeSeconds };
    const attemptId = config.isFifo ? options.receiveRequestAttemptId : undefined;
    if (attemptId !== undefined) {
      // A retry returns the same messages while they are still in flight under the same receive;
      // once all of them were deleted or changed, the id starts a fresh receive.
      const replay = await this.replayAttempt(queue, view, attemptId, nowMs);
      if (replay !== undefined && replay.length > 0) return { readKeys: queue.readKeys, writes: [], result: { ...base, messages: replay } };
    }
    await this.checkInFlightLimit(queue, view, nowMs);
    const state: ClaimState = {
      queue,
      view,
      nowMs,
      visibilityTimeoutMs: (options.visibilityTimeoutSeconds ?? config.visibilityTimeoutSeconds) * 1000,
      wanted: Math.max(1, Math.min(options.maxMessages, sqsLimits.receiveMessagesMax.value)),
      readKeys: [...queue.readKeys],
      writes: [],
      claimed: [],
      mover: new DeadLetterMover(this.ctx, view, queue, nowMs),
      rowsExamined: 0,
      reserved,
      recorder,
    };
    const start = this.nextPartitionStart(name, queue.meta.partitionCount);
    for (const partition of partitionVisitOrder(queue.meta.partitionCount, start)) {
      if (state.claimed.length >= state.wanted || state.rowsExamined >= raftqLimits.receiveScanRowsMax.value) break;
      await this.scanPartition(state, partition);
    }
    const messages = state.claimed.map((record) => this.toReceived(queue, record));
    if (state.claimed.length > 0) {
      if (state.visibilityTimeoutMs > 0) this.noteClaimed(queue, state.claimed.length);
      if (attemptId !== undefined) {
        const row: AttemptRow = {
          expiresAtMs: nowMs + sqsLimits.receiveRequestAttemptWindowMs.value,
          claims: state.claimed.map((r) => ({ partition: r.partition, messageId: r.messageId, token: r.receiptToken ?? '' })),
        };
        state.writes.push({ kind: 'put', key: queue.keys.receiveAttempt(attemptId), value: encoder.encode(JSON.stringify(row)) });
      }
      return { readKeys: state.readKeys, writes: state.writes, result: { ...base, messages } };
    }
    // Nothing to deliver; dead-letter moves (if any) still commit. Only a long poll waits for the
    // earliest future message: a short poll skips the scan of the in-flight range it would take.
    const isLongPoll = (options.waitTimeSeconds ?? config.receiveWaitTimeSeconds) > 0;
    const nextVisibleAtMs = isLongPoll ? await this.earliestFutureVisibleAtMs(queue, view, nowMs) : undefined;
    const result: ClaimResult = nextVisibleAtMs === undefined ? { ...base, messages } : { ...base, messages, nextVisibleAtMs };
    return { readKeys: state.readKeys, writes: state.writes, result };
  }

  private nextPartitionStart(name: string, partitionCount: number): number {
    if (partitionCount === 1) return 0;
    const start = this.partitionStarts.get(name) ?? 0;
    this.partitionStarts.set(name, (start + 1) % partitionCount);
    return start;
  }

  private async scanPartition(state: ClaimState, partition: number): Promise<void> {
    const hintId = VisibilityScanHints.idOf(state.queue.meta.name, state.queue.meta.generation, partition);
    const fromMs = this.scanHints.startMs(hintId, state.nowMs);
    const range = state.queue.keys.visibleRange(partition, state.nowMs, fromMs);
    const pageRows = raftqLimits.receiveScanPageRows.value;
    const rowsMax = raftqLimits.receiveScanRowsMax.value;
    const groupsSeen = new Set<string>();
    const isFifo = state.queue.meta.config.isFifo;
    let gte = range.gte;
    let isFirstPage = true;
    while (state.claimed.length < state.wanted && state.rowsExamined < rowsMax) {
      const limit = Math.min(pageRows, rowsMax - state.rowsExamined);
      const page = await state.view.scan({ gte, lt: range.lt }, { limit });
      let rows: readonly KeyValue[] = page;
      if (isFirstPage) {
        isFirstPage = false;
        const first = page[0];
        this.scanHints.raise(state.recorder, hintId, fromMs, first === undefined ? state.nowMs + 1 : visibleAtOfKey(first.key), state.nowMs);
        // Nodes start at different points of a standard queue's head, so they rarely race for a message.
        if (!isFifo) rows = rotatedRows(page, firstPageOffset(this.scanSlot(), state.wanted, page.length));
      }
      for (const row of rows) {
        if (state.claimed.length >= state.wanted) return;
        state.rowsExamined++;
        const messageId = lastElementAsString(row.key);
        if (!this.tryReserve(state, messageId)) continue;
        const message = await this.readMessage(state, partition, messageId, decodeVisibilityState(row.value) === 'pending');
        if (message === undefined) continue;
        const groupId = message.record.messageGroupId;
        if (isFifo && groupId !== undefined) {
          if (groupsSeen.has(groupId)) continue;
          groupsSeen.add(groupId);
          await this.claimGroup(state, partition, groupId);
        } else if (message.record.visibleAtMs <= state.nowMs) {
          // (A later visibleAtMs means this vis row is a leftover of an earlier receive: the message is in flight.)
          await this.claimOrMove(state, message);
        }
      }
      const last = page[page.length - 1];
      if (last === undefined || page.length < limit) return;
      gte = keySuccessor(last.key);
    }
  }

  /** Reads a message; undefined for an orphan vis row or an expired message (never delivered). */
  private async readMessage(state: ClaimState, partition: number, messageId: string, isNeverReceived = false): Promise<StoredMessage | undefined> {
    const message = await state.queue.messages.read(state.view, partition, messageId, { isNeverReceived });
    if (message === undefined || isExpired(message.record, state.queue.meta.config.messageRetentionSeconds, state.nowMs)) return undefined;
    return message;
  }

  private async claimGroup(state: ClaimState, partition: number, groupId: string): Promise<void> {
    const range = state.queue.keys.groupRange(partition, groupId);
    let gte = range.gte;
    for (;;) {
      const page = await state.view.scan({ gte, lt: range.lt }, { limit: sqsLimits.receiveMessagesMax.value + 1 });
      for (const row of page) {
        if (state.claimed.length >= state.wanted) return;
        state.rowsExamined++;
        const messageId = decoder.decode(row.value);
        // A message of this group is being claimed by another receive here: the group is taken.
        if (!this.tryReserve(state, messageId)) return;
        const message = await this.readMessage(state, partition, messageId);
        if (message === undefined) continue;
        // The group is locked by a message in flight, or blocked by one not yet visible.
        if (message.record.visibleAtMs > state.nowMs) return;
        await this.claimOrMove(state, message);
      }
      const last = page[page.length - 1];
      if (last === undefined || page.length <= sqsLimits.receiveMessagesMax.value) return;
      gte = keySuccessor(last.key);
    }
  }

  /**
   * Marks a message as being looked at by this attempt before its row is even read, so that
   * concurrent receives here, interleaved at every await, never pick the same one.
   */
  private tryReserve(state: ClaimState, messageId: string): boolean {
    const id = claimId(state.queue, messageId);
    if (state.reserved.has(id)) return true;
    if (this.claimsInProgress.has(id)) return false;
    state.reserved.add(id);
    this.claimsInProgress.add(id);
    return true;
  }

  /**
   * Claims the message (a new state row and its vis row moved; the data row stays as it is) or
   * moves it to the dead-letter queue. Both decide from the data and state rows: both are read.
   */
  private async claimOrMove(state: ClaimState, message: StoredMessage): Promise<void> {
    const { messages } = state.queue;
    const { record } = message;
    state.readKeys.push(...message.readKeys);
    if (state.mover.isDue(record) && (await state.mover.maybeMove(message, state))) return;
    const claimed: MessageRecord = {
      ...record,
      receiveCount: record.receiveCount + 1,
      firstReceiveAtMs: record.firstReceiveAtMs ?? state.nowMs,
      claimedAtMs: state.nowMs,
      receiptToken: this.ctx.newId(),
      visibleAtMs: state.nowMs + state.visibilityTimeoutMs,
    };
    state.writes.push(...messages.receiveStateWrites(message, claimed));
    state.claimed.push(claimed);
  }

  private async replayAttempt(queue: LoadedQueue, view: ReadView, attemptId: string, nowMs: number): Promise<ReceivedMessage[] | undefined> {
    const bytes = await view.get(queue.keys.receiveAttempt(attemptId));
    if (bytes === undefined) return undefined;
    const row = JSON.parse(decoder.decode(bytes)) as AttemptRow;
    if (row.expiresAtMs <= nowMs) return undefined;
    const messages: ReceivedMessage[] = [];
    for (const claim of row.claims) {
      const message = await queue.messages.read(view, claim.partition, claim.messageId);
      if (message === undefined) continue;
      const { record } = message;
      if (record.receiptToken === claim.token && isInFlight(record, nowMs)) messages.push(this.toReceived(queue, record));
    }
    return messages;
  }

  private async checkInFlightLimit(queue: LoadedQueue, view: ReadView, nowMs: number): Promise<void> {
    const limit = this.inFlightMessagesMax ?? (queue.meta.config.isFifo ? sqsLimits.inFlightMessagesFifoMax.value : sqsLimits.inFlightMessagesStandardMax.value);
    const cached = this.inFlightCounts.get(queue.meta.name);
    let count: number;
    if (cached !== undefined && cached.generation === queue.meta.generation && nowMs - cached.atMs < raftqLimits.inFlightCountCacheMs.value) {
      count = cached.count;
    } else {
      count = await countInFlight(view, queue.keys, queue.meta.partitionCount, nowMs, limit);
      this.inFlightCounts.set(queue.meta.name, { generation: queue.meta.generation, atMs: nowMs, count });
    }
    if (count >= limit) throw new OverLimitError('messages in flight', count, limit);
  }

  private noteClaimed(queue: LoadedQueue, claimedCount: number): void {
    const cached = this.inFlightCounts.get(queue.meta.name);
    if (cached !== undefined && cached.generation === queue.meta.generation) cached.count += claimedCount;
  }

  private async earliestFutureVisibleAtMs(queue: LoadedQueue, view: ReadView, nowMs: number): Promise<number | undefined> {
    let earliest: number | undefined;
    for (let partition = 0; partition < queue.meta.partitionCount; partition++) {
      const [row] = await view.scan(queue.keys.futureRange(partition, nowMs), { limit: 1 });
      if (row === undefined) continue;
      const visibleAtMs = visibleAtOfKey(row.key);
      if (earliest === undefined || visibleAtMs < earliest) earliest = visibleAtMs;
    }
    return earliest;
  }

  private toReceived(queue: LoadedQueue, record: MessageRecord): ReceivedMessage {
    const attributes: Record<string, string> = {
      SentTimestamp: String(record.sentAtMs),
      ApproximateReceiveCount: String(record.receiveCount),
      ApproximateFirstReceiveTimestamp: String(record.firstReceiveAtMs ?? record.claimedAtMs ?? record.sentAtMs),
      SenderId: record.senderId,
    };
    if (record.messageGroupId !== undefined) attributes['MessageGroupId'] = record.messageGroupId;
    if (record.sequenceNumber !== undefined) attributes['SequenceNumber'] = record.sequenceNumber;
    if (record.messageDeduplicationId !== undefined) attributes['MessageDeduplicationId'] = record.messageDeduplicationId;
    if (record.deadLetterSourceArn !== undefined) attributes['DeadLetterQueueSourceArn'] = record.deadLetterSourceArn;
    const traceHeader = record.systemAttributes['AWSTraceHeader']?.stringValue;
    if (traceHeader !== undefined) attributes['AWSTraceHeader'] = traceHeader;
    return {
      messageId: record.messageId,
      receiptHandle: encodeReceiptHandle({
        version: queue.meta.partitionCount > 1 ? 2 : 1,
        partition: record.partition,
        generation: queue.meta.generation,
        queueName: queue.meta.name,
        messageId: record.messageId,
        token: record.receiptToken ?? '',
      }),
      body: record.body,
      messageAttributes: record.messageAttributes,
      systemAttributes: record.systemAttributes,
      attributes,
    };
  }
}

function claimId(queue: LoadedQueue, messageId: string): string {
  return `${queue.meta.name}/${queue.meta.generation}/${messageId}`;
}

function lastElementAsString(key: Uint8Array): string {
  const tuple = decodeKey(key);
  const last = tuple[tuple.length - 1];
  return String(last);
}

/** visibleAtMs of a vis key (…, "vis", partition, visibleAtMs, order, messageId). */
export function visibleAtOfKey(key: Uint8Array): number {
  const tuple = decodeKey(key);
  return Number(tuple[tuple.length - 3]);
}
