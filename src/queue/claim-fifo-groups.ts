/**
 * FIFO claiming within one partition of a receive attempt (claim-messages.ts): the index only
 * nominates a group whose head is visible; the group's rows are then read in SequenceNumber order
 * in the attempt's view, the head is claimed, then its successors, and the group stops at the
 * first message in flight or not yet visible. Order never depends on visibleAtMs or on ids
 * (docs/TRAPS.md, trap 16). It stands apart from standard claiming (claim-standard-messages.ts),
 * which takes single messages in delivery order instead of groups.
 */
import { raftqLimits, sqsLimits } from '../base/limits.js';
import { keySuccessor } from '../storage/key-codec.js';
import { claimOrMove, type ClaimState } from './claim-state.js';
import type { FifoPartitionIndex } from './index/fifo-partition-index.js';
import { isExpired } from './message-record.js';

const decoder = new TextDecoder();

/** FIFO: takes groups whose head is visible, and claims each group's head and successors. */
export async function claimFromGroups(
  state: ClaimState,
  partition: number,
  index: FifoPartitionIndex,
  newId: () => string,
): Promise<void> {
  while (state.claimed.length < state.wanted && state.rowsExamined < raftqLimits.receiveScanRowsMax.value) {
    const group = index.take(state.nowMs);
    if (group === undefined) return;
    state.taken.push(() => index.release(group));
    state.rowsExamined++;
    const expiredIds = await claimGroup(state, partition, group.groupId, newId);
    if (expiredIds.length > 0) index.markExpired(group, expiredIds);
  }
}

/** Claims the group's head and successors as the view has them; returns the ids of expired messages passed. */
async function claimGroup(
  state: ClaimState,
  partition: number,
  groupId: string,
  newId: () => string,
): Promise<string[]> {
  const range = state.queue.keys.groupRange(partition, groupId);
  const expiredIds: string[] = [];
  let gte = range.gte;
  for (;;) {
    const page = await state.view.scan({ gte, lt: range.lt }, { limit: sqsLimits.receiveMessagesMax.value + 1 });
    for (const row of page) {
      if (state.claimed.length >= state.wanted) return expiredIds;
      const messageId = decoder.decode(row.value);
      const message = await state.queue.messages.read(state.view, partition, messageId);
      if (message === undefined) continue;
      if (isExpired(message.record, state.queue.meta.config.messageRetentionSeconds, state.nowMs)) {
        expiredIds.push(messageId);
        continue;
      }
      // The group is locked by a message in flight, or blocked by one not yet visible.
      if (message.record.visibleAtMs > state.nowMs) return expiredIds;
      await claimOrMove(state, message, newId);
    }
    const last = page[page.length - 1];
    if (last === undefined || page.length <= sqsLimits.receiveMessagesMax.value) return expiredIds;
    gte = keySuccessor(last.key);
  }
}
