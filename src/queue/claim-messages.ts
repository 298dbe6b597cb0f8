/**
 * One receive attempt: the transaction that claims up to 10 messages (docs/architecture/queue.md, "Receive").
 *
 * Candidates come from this node's in-memory queue index (index/queue-indexes.ts), partition by
 * partition from a rotating start (docs/TRAPS.md, trap 14), never from a scan of the vis rows: the standard
 * index offers messages in enqueue order, the FIFO index offers groups whose head is visible. The
 * index is a hint: every candidate's rows are read in the attempt's view and validated at commit,
 * so a stale index costs a skip or a conflict, never a wrong delivery. Candidates are taken
 * exclusively until the attempt ends, so concurrent receives here take disjoint messages. A
 * receive examines at most raftqLimits.receiveScanRowsMax candidates (trap 11: messages it cannot
 * deliver are passed, not stopped at). Expired messages are never delivered, whether or not the
 * reaper has removed them (trap 13), and the index stops offering them, so they never hide live
 * messages behind them.
 *
 * A claim gives the message a new receipt token, counts the receive and moves its vis row to now +
 * visibility timeout; a message that has used up its receives moves to the dead-letter queue in
 * the same transaction.
 *
 * FIFO: the index only nominates a group. The group's rows are then read in SequenceNumber order
 * in the view: the head is delivered if visible, then its successors, and the group stops at the
 * first message in flight or not yet visible. Order never depends on visibleAtMs or on ids (trap
 * 16), so sends stamped by a clock that went backwards still deliver in sequence order.
 *
 * Standard claiming is in claim-standard-messages.ts, FIFO group claiming in claim-fifo-groups.ts,
 * the claim of one message (shared by both) in claim-state.ts.
 */
import { raftqLimits, sqsLimits } from '../base/limits.js';
import type { ReadView } from '../storage/txn.js';
import { decodeAttemptRow, encodeAttemptRow, type AttemptRow } from './layout/attempt-row.js';
import { claimFromGroups } from './claim-fifo-groups.js';
import type { ClaimState } from './claim-state.js';
import { claimFromMessages } from './claim-standard-messages.js';
import { DeadLetterMover } from './dead-letter-move.js';
import { OverLimitError } from './errors.js';
import { isInFlight, type MessageRecord } from './message-record.js';
import type { PartitionIndex, QueueIndexes } from './index/queue-indexes.js';
import { singleScanSlot, type ReceiveScanSlot } from './receive-scan-slot.js';
import { partitionVisitOrder } from './partitioning.js';
import type { ReceivedMessage, ReceiveOptions } from './queue-api.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { encodeReceiptHandle } from './receipt-handle.js';
import type { TxnPlan } from './txn-runner.js';

export interface ClaimResult {
  readonly messages: ReceivedMessage[];
  /** The queue's ReceiveMessageWaitTimeSeconds as this attempt read it. */
  readonly queueWaitTimeSeconds: number;
  /** When nothing was claimed by a long poll: the earliest future visibleAtMs, for its timer. */
  readonly nextVisibleAtMs?: number;
}

export class MessageClaimer {
  private readonly partitionStarts = new Map<string, number>();
  private readonly inFlightCounts = new Map<string, { generation: number; atMs: number; count: number }>();

  constructor(
    private readonly ctx: QueueContext,
    private readonly inFlightMessagesMax: number | undefined,
    private readonly indexes: QueueIndexes,
    /** Where this node starts in the head of a standard queue (receive-scan-slot.ts); read per receive, as membership changes. */
    private readonly scanSlot: () => ReceiveScanSlot = () => singleScanSlot,
  ) {}

  async claimOnce(name: string, options: ReceiveOptions): Promise<ClaimResult> {
    const taken: Array<() => void> = [];
    let batchAtView = 0;
    const releaseTaken = () => {
      for (const release of taken) release();
      taken.length = 0;
    };
    try {
      return await this.ctx.runner.run(
        'ReceiveMessage',
        (attempt) => {
          releaseTaken();
          return this.plan(name, options, attempt.view, attempt.nowMs, taken, batchAtView);
        },
        {
          staleAnswerWithoutWritesIsAcceptable: true,
          beforeEachView: () => {
            batchAtView = this.indexes.appliedBatches;
          },
        },
      );
    } finally {
      releaseTaken();
    }
  }

  private async plan(
    name: string,
    options: ReceiveOptions,
    view: ReadView,
    nowMs: number,
    taken: Array<() => void>,
    batchAtView: number,
  ): Promise<TxnPlan<ClaimResult>> {
    const queue = await this.ctx.loadQueue(view, name);
    const { config } = queue.meta;
    const base = { queueWaitTimeSeconds: config.receiveWaitTimeSeconds };
    const attemptId = config.isFifo ? options.receiveRequestAttemptId : undefined;
    if (attemptId !== undefined) {
      // A retry returns the same messages while they are still in flight under the same receive;
      // once all of them were deleted or changed, the id starts a fresh receive.
      const replay = await this.replayAttempt(queue, view, attemptId, nowMs);
      if (replay !== undefined && replay.length > 0)
        return { readKeys: queue.readKeys, writes: [], result: { ...base, messages: replay } };
    }
    await this.checkInFlightLimit(queue, nowMs);
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
      taken,
      batchAtView,
    };
    const newId = () => this.ctx.newId();
    const start = this.nextPartitionStart(name, queue.meta.partitionCount);
    for (const partition of partitionVisitOrder(queue.meta.partitionCount, start)) {
      if (state.claimed.length >= state.wanted || state.rowsExamined >= raftqLimits.receiveScanRowsMax.value) break;
      const index = await this.indexOf(queue, partition, nowMs);
      if (index.kind === 'fifo') await claimFromGroups(state, partition, index, newId);
      else
        await claimFromMessages(state, partition, index, {
          scanSlot: this.scanSlot(),
          heardThroughTsUs: () => this.indexes.heardThroughTsUs,
          newId,
        });
    }
    const messages = state.claimed.map((record) => this.toReceived(queue, record));
    if (state.claimed.length > 0) {
      if (state.visibilityTimeoutMs > 0) this.noteClaimed(queue, state.claimed.length);
      if (attemptId !== undefined) {
        const row: AttemptRow = {
          expiresAtMs: nowMs + sqsLimits.receiveRequestAttemptWindowMs.value,
          claims: state.claimed.map((r) => ({
            partition: r.partition,
            messageId: r.messageId,
            token: r.receiptToken ?? '',
          })),
        };
        state.writes.push({
          kind: 'put',
          key: queue.keys.receiveAttempt(attemptId),
          value: encodeAttemptRow(row),
        });
      }
      return { readKeys: state.readKeys, writes: state.writes, result: { ...base, messages } };
    }
    // Nothing to deliver; dead-letter moves (if any) still commit. Only a long poll waits for the
    // earliest future message.
    const isLongPoll = (options.waitTimeSeconds ?? config.receiveWaitTimeSeconds) > 0;
    const nextVisibleAtMs = isLongPoll ? await this.earliestFutureVisibleAtMs(queue, nowMs) : undefined;
    const result: ClaimResult =
      nextVisibleAtMs === undefined ? { ...base, messages } : { ...base, messages, nextVisibleAtMs };
    return { readKeys: state.readKeys, writes: state.writes, result };
  }

  /** The partition's index, with expired messages offered again if the retention period was raised since. */
  private async indexOf(queue: LoadedQueue, partition: number, nowMs: number): Promise<PartitionIndex> {
    const index = await this.indexes.partition(queue, partition, nowMs);
    const retentionSeconds = queue.meta.config.messageRetentionSeconds;
    if (index.retentionSeconds !== undefined && retentionSeconds > index.retentionSeconds) index.reviveExpired();
    index.retentionSeconds = retentionSeconds;
    return index;
  }

  private nextPartitionStart(name: string, partitionCount: number): number {
    if (partitionCount === 1) return 0;
    const start = this.partitionStarts.get(name) ?? 0;
    this.partitionStarts.set(name, (start + 1) % partitionCount);
    return start;
  }

  private async replayAttempt(
    queue: LoadedQueue,
    view: ReadView,
    attemptId: string,
    nowMs: number,
  ): Promise<ReceivedMessage[] | undefined> {
    const bytes = await view.get(queue.keys.receiveAttempt(attemptId));
    if (bytes === undefined) return undefined;
    const row = decodeAttemptRow(bytes);
    if (row.expiresAtMs <= nowMs) return undefined;
    const messages: ReceivedMessage[] = [];
    for (const claim of row.claims) {
      const message = await queue.messages.read(view, claim.partition, claim.messageId);
      if (message === undefined) continue;
      const { record } = message;
      if (record.receiptToken === claim.token && isInFlight(record, nowMs))
        messages.push(this.toReceived(queue, record));
    }
    return messages;
  }

  private async checkInFlightLimit(queue: LoadedQueue, nowMs: number): Promise<void> {
    const limit =
      this.inFlightMessagesMax ??
      (queue.meta.config.isFifo
        ? sqsLimits.inFlightMessagesFifoMax.value
        : sqsLimits.inFlightMessagesStandardMax.value);
    const cached = this.inFlightCounts.get(queue.meta.name);
    let count: number;
    if (
      cached !== undefined &&
      cached.generation === queue.meta.generation &&
      nowMs - cached.atMs < raftqLimits.inFlightCountCacheMs.value
    ) {
      count = cached.count;
    } else {
      // From the index (a count over memory, no scan); like every count here it is approximate.
      count = 0;
      for (let partition = 0; partition < queue.meta.partitionCount; partition++)
        count += (await this.indexes.partition(queue, partition, nowMs)).inFlightCount(nowMs);
      this.inFlightCounts.set(queue.meta.name, { generation: queue.meta.generation, atMs: nowMs, count });
    }
    if (count >= limit) throw new OverLimitError('messages in flight', count, limit);
  }

  private noteClaimed(queue: LoadedQueue, claimedCount: number): void {
    const cached = this.inFlightCounts.get(queue.meta.name);
    if (cached !== undefined && cached.generation === queue.meta.generation) cached.count += claimedCount;
  }

  private async earliestFutureVisibleAtMs(queue: LoadedQueue, nowMs: number): Promise<number | undefined> {
    let earliest: number | undefined;
    for (let partition = 0; partition < queue.meta.partitionCount; partition++) {
      const visibleAtMs = (await this.indexes.partition(queue, partition, nowMs)).nextVisibleAtMs(nowMs);
      if (visibleAtMs !== undefined && (earliest === undefined || visibleAtMs < earliest)) earliest = visibleAtMs;
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
    if (record.messageDeduplicationId !== undefined)
      attributes['MessageDeduplicationId'] = record.messageDeduplicationId;
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
