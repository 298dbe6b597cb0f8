/**
 * What an operator sees of the queues (the admin port's /queues and the queue metrics): each
 * queue's type, exact message counts as GetQueueAttributes gives them, the age of its oldest
 * message and its dead-letter target — all from one read view, changing nothing.
 */
import { keySuccessor } from '../storage/key-codec.js';
import type { ReadView } from '../storage/txn.js';
import { globalKeyParts, globalKeys, parseMessageRowKey, type GenerationKeys } from './layout/key-layout.js';
import { countMessages } from './message-counts.js';
import { retentionStartMsOfVisibilityValue } from './layout/vis-row.js';
import type { QueueContext } from './queue-context.js';
import { parseQueueArn } from './redrive-policy.js';

export interface QueueSummary {
  readonly name: string;
  readonly type: 'standard' | 'fifo';
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** Whole seconds since the oldest message's retention period started; 0 for an empty queue. */
  readonly oldestMessageAgeSeconds: number;
  /** The name of the queue its RedrivePolicy sends messages to, or null. */
  readonly deadLetterTarget: string | null;
  /** False when the queue had more rows than the count scan reads (message-counts.ts): the counts are lower bounds. */
  readonly isExact: boolean;
}

const namePageRows = 1_000;

/** Every live queue's name, in name order. */
export async function queueNames(view: ReadView): Promise<string[]> {
  const names: string[] = [];
  let { gte } = globalKeys.queueIndexRange();
  const { lt } = globalKeys.queueIndexRange();
  for (;;) {
    const page = await view.scan({ gte, lt }, { limit: namePageRows });
    for (const row of page) names.push(globalKeyParts.queueIndexName(row.key));
    const last = page.at(-1);
    if (last === undefined || page.length < namePageRows) return names;
    gte = keySuccessor(last.key);
  }
}

/** One queue's summary on `view`, or undefined when it does not exist there. */
export async function summarizeQueue(
  ctx: QueueContext,
  view: ReadView,
  name: string,
  nowMs: number,
): Promise<QueueSummary | undefined> {
  const queue = await ctx.maybeLoadQueue(view, name);
  if (queue === undefined) return undefined;
  const { meta } = queue;
  const counts = await countMessages(view, queue.keys, meta.partitionCount, nowMs, meta.config.messageRetentionSeconds);
  const oldestStartMs = await oldestRetentionStartMs(view, queue.keys, meta.partitionCount);
  const targetArn = meta.config.redrivePolicy?.deadLetterTargetArn;
  return {
    name,
    type: meta.config.isFifo ? 'fifo' : 'standard',
    visible: counts.visible,
    inFlight: counts.inFlight,
    delayed: counts.delayed,
    oldestMessageAgeSeconds: oldestStartMs === undefined ? 0 : Math.max(0, Math.floor((nowMs - oldestStartMs) / 1000)),
    deadLetterTarget: targetArn === undefined ? null : (parseQueueArn(targetArn)?.queueName ?? targetArn),
    isExact: counts.isExact,
  };
}

/** Every live queue's summary, in name order, from one view. */
export async function summarizeQueues(ctx: QueueContext, view: ReadView, nowMs: number): Promise<QueueSummary[]> {
  const summaries: QueueSummary[] = [];
  for (const name of await queueNames(view)) {
    const summary = await summarizeQueue(ctx, view, name, nowMs);
    if (summary !== undefined) summaries.push(summary);
  }
  return summaries;
}

/**
 * The earliest retention start among the queue's messages, near enough: the first row of each
 * partition's age rows (ordered by it; messages moved in long after their retention started, and
 * those an older version stored) and the retention start its first vis row carries (a message's
 * retention starts at most the longest delay before its vis row's time, message-store.ts).
 */
async function oldestRetentionStartMs(
  view: ReadView,
  keys: GenerationKeys,
  partitionCount: number,
): Promise<number | undefined> {
  let oldest: number | undefined;
  for (let partition = 0; partition < partitionCount; partition++) {
    const [firstVis] = await view.scan(keys.visibilityPrefix(partition), { limit: 1 });
    const visStartMs = firstVis === undefined ? undefined : retentionStartMsOfVisibilityValue(firstVis.value);
    if (visStartMs !== undefined && (oldest === undefined || visStartMs < oldest)) oldest = visStartMs;
    const [first] = await view.scan(keys.agePrefix(partition), { limit: 1 });
    if (first === undefined) continue;
    const row = parseMessageRowKey(first.key);
    if (row?.family !== 'age') continue;
    if (oldest === undefined || row.retentionStartMs < oldest) oldest = row.retentionStartMs;
  }
  return oldest;
}
