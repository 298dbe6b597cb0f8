/**
 * A peek: up to `limit` messages of a queue as they are, read from one linearizable view, with
 * nothing written — no receive count, no visibility change, no receipt handle. SQS has no such
 * call; operators use it to see what sits in a queue (a dead-letter queue above all) without
 * taking it from its consumers.
 *
 * Order: by the time each message is (or becomes) visible, then by its order in the queue: the
 * messages a receive would take first come first, then those in flight or delayed.
 */
import { raftqLimits } from '../base/limits.js';
import type { ReadView } from '../storage/txn.js';
import type { MessageRecord } from './message-record.js';
import { parseMessageRowKey } from './layout/key-layout.js';
import type { LoadedQueue } from './queue-context.js';
import type { MessageAttributes } from './queue-api.js';

export type PeekedState = 'visible' | 'inflight' | 'delayed';

export interface PeekedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: MessageAttributes;
  readonly systemAttributes: MessageAttributes;
  readonly state: PeekedState;
  readonly receiveCount: number;
  readonly sentAtMs: number;
  readonly visibleAtMs: number;
  readonly firstReceiveAtMs?: number;
  readonly senderId: string;
  readonly messageGroupId?: string;
  readonly messageDeduplicationId?: string;
  readonly sequenceNumber?: string;
  readonly deadLetterSourceArn?: string;
}

interface VisRow {
  readonly partition: number;
  readonly visibleAtMs: number;
  readonly order: bigint;
  readonly messageId: string;
}

export async function peekMessages(
  view: ReadView,
  queue: LoadedQueue,
  nowMs: number,
  limit: number,
): Promise<PeekedMessage[]> {
  const rows: VisRow[] = [];
  for (let partition = 0; partition < queue.meta.partitionCount; partition++) {
    // A vis row stays where the send put it, so in-flight messages sit among visible ones: each
    // partition's first rows are read with room for them, then ordered by what the messages say.
    for (const row of await view.scan(queue.keys.visibilityPrefix(partition), {
      limit: Math.min(limit * 4, raftqLimits.receiveScanRowsMax.value),
    })) {
      const visRow = parseMessageRowKey(row.key);
      if (visRow?.family === 'vis')
        rows.push({
          partition,
          visibleAtMs: visRow.visibleAtMs,
          order: BigInt(visRow.order),
          messageId: visRow.messageId,
        });
    }
  }
  rows.sort((a, b) => a.visibleAtMs - b.visibleAtMs || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  const peeked: PeekedMessage[] = [];
  for (const row of rows) {
    const stored = await queue.messages.read(view, row.partition, row.messageId);
    // A vis row without its message is the reaper's to clear; a peek skips it like a receive does.
    if (stored === undefined) continue;
    peeked.push(peekedOf(stored.record, nowMs));
  }
  // Visible messages in enqueue order first, then the others by when they become visible.
  const visible = peeked.filter((m) => m.state === 'visible');
  const later = peeked.filter((m) => m.state !== 'visible').sort((a, b) => a.visibleAtMs - b.visibleAtMs);
  return [...visible, ...later].slice(0, limit);
}

function peekedOf(record: MessageRecord, nowMs: number): PeekedMessage {
  const state: PeekedState =
    record.visibleAtMs <= nowMs ? 'visible' : record.receiptToken !== undefined ? 'inflight' : 'delayed';
  return {
    messageId: record.messageId,
    body: record.body,
    messageAttributes: record.messageAttributes,
    systemAttributes: record.systemAttributes,
    state,
    receiveCount: record.receiveCount,
    sentAtMs: record.sentAtMs,
    visibleAtMs: record.visibleAtMs,
    senderId: record.senderId,
    ...(record.firstReceiveAtMs !== undefined ? { firstReceiveAtMs: record.firstReceiveAtMs } : {}),
    ...(record.messageGroupId !== undefined ? { messageGroupId: record.messageGroupId } : {}),
    ...(record.messageDeduplicationId !== undefined ? { messageDeduplicationId: record.messageDeduplicationId } : {}),
    ...(record.sequenceNumber !== undefined ? { sequenceNumber: record.sequenceNumber } : {}),
    ...(record.deadLetterSourceArn !== undefined ? { deadLetterSourceArn: record.deadLetterSourceArn } : {}),
  };
}
