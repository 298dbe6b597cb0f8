/**
 * Moves a message to its queue's dead-letter queue inside the receive transaction that would
 * exceed maxReceiveCount. The target is checked at move time (docs/TRAPS.md, trap 9): it must still exist and be
 * of the same type. When it is not, the message stays in its queue and is delivered as usual, and
 * the condition is logged and counted: a missing dead-letter queue never wedges receives (trap 17).
 * A FIFO target gives the copy its own next sequence number.
 */
import type { ReadView, TxnWrite } from '../storage/txn.js';
import { queueKeys } from './layout/key-layout.js';
import { messageRecord, type MessageRecord } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import { partitionOfGroup } from './partitioning.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import { checkRedriveTarget, type RedriveTargetCheck } from './redrive-target.js';
import {
  decodeSequenceCounter,
  encodeSequenceCounter,
  formatSequenceNumber,
  sequenceNumberOf,
} from './layout/fifo-sequence.js';

export class DeadLetterMover {
  private check: RedriveTargetCheck | undefined;
  private readonly counters = new Map<number, bigint>();
  private hasReadTarget = false;

  constructor(
    private readonly ctx: QueueContext,
    private readonly view: ReadView,
    private readonly source: LoadedQueue,
    private readonly nowMs: number,
  ) {}

  /** True when the message has used up its receives and should move instead of being delivered. */
  isDue(record: MessageRecord): boolean {
    const policy = this.source.meta.config.redrivePolicy;
    return policy !== undefined && record.receiveCount + 1 > policy.maxReceiveCount;
  }

  /**
   * Adds the move to `out` and returns true, or returns false when the target cannot take it.
   * The caller has put the message's data and state keys into `out.readKeys`.
   */
  async maybeMove(message: StoredMessage, out: { readKeys: Uint8Array[]; writes: TxnWrite[] }): Promise<boolean> {
    const { record } = message;
    const policy = this.source.meta.config.redrivePolicy;
    if (policy === undefined) return false;
    if (this.check === undefined) {
      this.check = await checkRedriveTarget(
        this.ctx,
        this.view,
        { name: this.source.meta.name, isFifo: this.source.meta.config.isFifo },
        policy.deadLetterTargetArn,
      );
      if (this.check.kind === 'refused') {
        this.ctx.redriveSkippedCount++;
        const sourceName = this.source.meta.name;
        this.ctx.whenSettled(this.view, () => this.ctx.activity.noteRedriveSkipped(sourceName));
        this.ctx.logger.warn(
          {
            queueName: this.source.meta.name,
            deadLetterTargetArn: policy.deadLetterTargetArn,
            reason: this.check.reason,
          },
          'dead-letter move skipped: the message stays in its queue',
        );
      }
    }
    if (this.check.kind === 'refused') return false;
    const target = this.check.target;
    if (!this.hasReadTarget) {
      out.readKeys.push(...target.readKeys);
      this.hasReadTarget = true;
    }
    const isFifo = target.meta.config.isFifo;
    const partition = partitionOfGroup(record.messageGroupId, target.meta.partitionCount);
    let order = record.order;
    let sequenceNumber: string | undefined;
    if (isFifo) {
      let counter = this.counters.get(partition);
      if (counter === undefined) {
        const key = queueKeys.sequence(target.meta.name, partition);
        counter = decodeSequenceCounter(await this.view.get(key));
        out.readKeys.push(key);
      }
      counter += 1n;
      this.counters.set(partition, counter);
      order = sequenceNumberOf(counter, partition);
      sequenceNumber = formatSequenceNumber(order);
      out.writes.push({
        kind: 'put',
        key: queueKeys.sequence(target.meta.name, partition),
        value: encodeSequenceCounter(counter),
      });
    }
    // The copy is a new delivery: no receive fields, and its own place and sequence in the target.
    const copy = messageRecord({
      ...record,
      partition,
      // AWS keeps a standard message's original enqueue time for retention and restarts it for FIFO.
      retentionStartMs: isFifo ? this.nowMs : record.retentionStartMs,
      visibleAtMs: this.nowMs,
      order,
      receiveCount: 0,
      firstReceiveAtMs: undefined,
      claimedAtMs: undefined,
      receiptToken: undefined,
      sequenceNumber,
      deadLetterSourceArn: this.ctx.queueArn(this.source.meta.name),
    });
    out.writes.push(...this.source.messages.deleteWrites(message), ...target.messages.insertWrites(copy));
    const sourceName = this.source.meta.name;
    this.ctx.whenSettled(this.view, () => this.ctx.activity.noteDeadLettered(sourceName));
    return true;
  }
}
