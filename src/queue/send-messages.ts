/**
 * SendMessage and SendMessageBatch: one transaction for every valid entry of the request.
 *
 * Message ids are minted once, before the first attempt, and kept across retries (docs/TRAPS.md, trap 8): a
 * retry after an outcome-unknown failure then cannot enqueue a second copy under a new id.
 * Everything that depends on the queue (generation, size limit, delay, FIFO dedup id and
 * sequence) is derived again on every attempt from that attempt's reads (trap 4). FIFO batches
 * go through the same dedup and sequence path as single sends (trap 7).
 *
 * A send that may run more than once (a follower forwards it again to a new leader after the
 * answer was lost) comes with its message ids and an idempotency key (SendContext): the ids are
 * the same in every run, and so are its txn ids (txn-runner.ts, `newTxnId`), so a run after one
 * that committed is answered "committed" by the apply step and writes nothing. A FIFO send's
 * dedup row answers such a run with the first run's message id and sequence number anyway.
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { TxnWrite } from '../storage/txn.js';
import { decodeDedupRow, encodeDedupRow, type DedupRow } from './layout/dedup-row.js';
import { InvalidParameterValueError, MessageTooLongError, MissingParameterError } from './errors.js';
import { queueKeys } from './layout/key-layout.js';
import { messageRecord, type MessageRecord } from './message-record.js';
import { messageSizeBytes } from './message-size.js';
import { KeyedMutex } from './keyed-mutex.js';
import { partitionOfGroup } from './partitioning.js';
import type { EntryFailure, SendContext, SendEntry, SendResult } from './queue-api.js';
import type { LoadedQueue, QueueContext } from './queue-context.js';
import {
  decodeSequenceCounter,
  encodeSequenceCounter,
  formatSequenceNumber,
  sequenceNumberOf,
} from './layout/fifo-sequence.js';
import { sqsLimits } from '../base/limits.js';
import type { ReadView } from '../storage/txn.js';

/** A valid entry, with what this attempt derived for it. */
interface PreparedEntry {
  readonly index: number;
  readonly entry: SendEntry;
  readonly messageId: string;
  readonly delaySeconds: number;
  readonly partition: number;
  readonly deduplicationId?: string;
}

type Outcome = SendResult | EntryFailure;

const fifoDeduplicationIdMissing =
  'the queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly';

function isFifoIdMissing(error: Error): boolean {
  if (error instanceof MissingParameterError) return error.parameterName === 'MessageGroupId';
  return (
    error instanceof InvalidParameterValueError &&
    error.parameterName === 'MessageDeduplicationId' &&
    error.reason === fifoDeduplicationIdMissing
  );
}

export class MessageSender {
  /** Orders standard messages sent in the same millisecond by this node (FIFO uses sequence numbers). */
  private standardOrder = 0n;
  private readonly fifoLocks = new KeyedMutex();

  constructor(private readonly ctx: QueueContext) {}

  async send(name: string, entries: readonly SendEntry[], context: SendContext): Promise<Outcome[]> {
    const messageIds = context.messageIds ?? entries.map(() => this.ctx.newId());
    if (messageIds.length !== entries.length)
      throw new Error(`sendMessages: ${messageIds.length} message ids for ${entries.length} entries`);
    // Only FIFO names end in .fifo (the type is fixed by the name): only their sends share a hot key.
    if (!name.endsWith('.fifo')) return this.sendOnce(name, entries, messageIds, context);
    // The lock keys only steer waiting; a stale partition count costs a conflict, never correctness.
    const partitionCount = this.ctx.metaCache.lastSeen(name)?.partitionCount ?? 1;
    const lockKeys = entries.map((entry) => `${name}/${partitionOfGroup(entry.messageGroupId, partitionCount)}`);
    return this.fifoLocks.withKeys(lockKeys, () => this.sendOnce(name, entries, messageIds, context));
  }

  private async sendOnce(
    name: string,
    entries: readonly SendEntry[],
    messageIds: readonly string[],
    context: SendContext,
  ): Promise<Outcome[]> {
    const key = context.idempotencyKey;
    let commits = 0;
    const runOptions = key === undefined ? {} : { newTxnId: () => `${key}.${commits++}` };
    return this.ctx.runner.run(
      'SendMessage',
      async ({ view, nowMs }) => {
        const queue = await this.ctx.loadQueue(view, name);
        const results: Array<Outcome | undefined> = entries.map(() => undefined);
        const prepared: PreparedEntry[] = [];
        entries.forEach((entry, index) => {
          try {
            prepared.push(this.prepare(queue, entry, index, messageIds[index] ?? this.ctx.newId()));
          } catch (error) {
            if (!(
              error instanceof MessageTooLongError ||
              error instanceof InvalidParameterValueError ||
              error instanceof MissingParameterError
            ))
              throw error;
            // AWS fails the whole request, sending nothing, when a FIFO entry lacks its group or
            // deduplication id; other entry errors fail that entry alone.
            if (isFifoIdMissing(error)) throw error;
            results[index] = { entryId: entry.entryId, error };
          }
        });
        const readKeys = [...queue.readKeys];
        const writes: TxnWrite[] = [];
        if (queue.meta.config.isFifo) {
          await this.planFifo(view, queue, prepared, nowMs, context.senderId, { readKeys, writes, results });
        } else {
          for (const item of prepared) {
            const order = this.standardOrder++;
            writes.push(
              ...queue.messages.insertWrites(this.recordOf(item, nowMs, order, context.senderId, undefined), {
                isNewMessageId: true,
              }),
            );
            results[item.index] = { entryId: item.entry.entryId, messageId: item.messageId };
          }
        }
        return { readKeys, writes, result: results.map((r) => r as Outcome) };
      },
      runOptions,
    );
  }

  private prepare(queue: LoadedQueue, entry: SendEntry, index: number, messageId: string): PreparedEntry {
    const { config, partitionCount } = queue.meta;
    const sizeBytes = messageSizeBytes(entry.body, entry.messageAttributes);
    if (sizeBytes > config.maximumMessageSizeBytes)
      throw new MessageTooLongError(sizeBytes, config.maximumMessageSizeBytes);
    if (!config.isFifo) {
      if (entry.messageDeduplicationId !== undefined) {
        throw new InvalidParameterValueError(
          'MessageDeduplicationId',
          'only FIFO queues take a MessageDeduplicationId',
        );
      }
      return { index, entry, messageId, delaySeconds: entry.delaySeconds ?? config.delaySeconds, partition: 0 };
    }
    if (entry.messageGroupId === undefined || entry.messageGroupId === '') {
      throw new MissingParameterError('MessageGroupId', 'a FIFO queue needs a MessageGroupId on every message');
    }
    if (entry.delaySeconds !== undefined && entry.delaySeconds !== 0) {
      throw new InvalidParameterValueError('DelaySeconds', 'FIFO queues take a delay per queue only, not per message');
    }
    let deduplicationId = entry.messageDeduplicationId;
    if (deduplicationId === undefined) {
      if (!config.isContentBasedDeduplication) {
        throw new InvalidParameterValueError('MessageDeduplicationId', fifoDeduplicationIdMissing, {
          message:
            'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        });
      }
      deduplicationId = createHash('sha256').update(entry.body, 'utf8').digest('hex');
    }
    return {
      index,
      entry,
      messageId,
      delaySeconds: config.delaySeconds,
      partition: partitionOfGroup(entry.messageGroupId, partitionCount),
      deduplicationId,
    };
  }

  private async planFifo(
    view: ReadView,
    queue: LoadedQueue,
    prepared: readonly PreparedEntry[],
    nowMs: number,
    senderId: string,
    out: { readKeys: Uint8Array[]; writes: TxnWrite[]; results: Array<Outcome | undefined> },
  ): Promise<void> {
    const { keys, meta } = queue;
    const counters = new Map<number, bigint>();
    // Dedup decisions within the request: a repeated dedup id answers with the first entry's id.
    const seenInRequest = new Map<string, DedupRow>();
    const windowMs = sqsLimits.deduplicationWindowMs.value;
    for (const item of prepared) {
      const isGroupScope = meta.config.deduplicationScope === 'messageGroup';
      const groupScope = isGroupScope ? (item.entry.messageGroupId ?? '') : '';
      // Queue-wide dedup rows all live in partition 0, so the scope holds whatever the partition count.
      const dedupKey = keys.dedup(isGroupScope ? item.partition : 0, groupScope, item.deduplicationId ?? '');
      const dedupKeyText = Buffer.from(dedupKey).toString('latin1');
      const earlier = seenInRequest.get(dedupKeyText) ?? (await readDedup(view, dedupKey, nowMs));
      out.readKeys.push(dedupKey);
      if (earlier !== undefined) {
        out.results[item.index] = {
          entryId: item.entry.entryId,
          messageId: earlier.messageId,
          sequenceNumber: earlier.sequenceNumber,
        };
        continue;
      }
      let counter = counters.get(item.partition);
      if (counter === undefined) {
        const sequenceKey = queueKeys.sequence(queue.meta.name, item.partition);
        counter = decodeSequenceCounter(await view.get(sequenceKey));
        out.readKeys.push(sequenceKey);
      }
      counter += 1n;
      counters.set(item.partition, counter);
      const sequence = sequenceNumberOf(counter, item.partition);
      const record = this.recordOf(item, nowMs, sequence, senderId, formatSequenceNumber(sequence));
      out.writes.push(...queue.messages.insertWrites(record, { isNewMessageId: true }));
      const row: DedupRow = {
        messageId: item.messageId,
        sequenceNumber: formatSequenceNumber(sequence),
        expiresAtMs: nowMs + windowMs,
      };
      out.writes.push({ kind: 'put', key: dedupKey, value: encodeDedupRow(row) });
      seenInRequest.set(dedupKeyText, row);
      out.results[item.index] = {
        entryId: item.entry.entryId,
        messageId: item.messageId,
        sequenceNumber: row.sequenceNumber,
      };
    }
    for (const [partition, counter] of counters) {
      out.writes.push({
        kind: 'put',
        key: queueKeys.sequence(queue.meta.name, partition),
        value: encodeSequenceCounter(counter),
      });
    }
  }

  private recordOf(
    item: PreparedEntry,
    nowMs: number,
    order: bigint,
    senderId: string,
    sequenceNumber: string | undefined,
  ): MessageRecord {
    const { entry } = item;
    return messageRecord({
      messageId: item.messageId,
      body: entry.body,
      messageAttributes: entry.messageAttributes,
      systemAttributes: entry.systemAttributes,
      senderId,
      sentAtMs: nowMs,
      retentionStartMs: nowMs,
      partition: item.partition,
      visibleAtMs: nowMs + item.delaySeconds * 1000,
      order,
      receiveCount: 0,
      messageGroupId: entry.messageGroupId,
      messageDeduplicationId: item.deduplicationId,
      sequenceNumber,
    });
  }
}

async function readDedup(view: ReadView, key: Uint8Array, nowMs: number): Promise<DedupRow | undefined> {
  const bytes = await view.get(key);
  if (bytes === undefined) return undefined;
  const row = decodeDedupRow(bytes);
  // An expired row is a miss even before the reaper removes it; this send overwrites it.
  return row.expiresAtMs > nowMs ? row : undefined;
}
