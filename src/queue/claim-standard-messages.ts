/**
 * Standard-queue claiming within one partition of a receive attempt (claim-messages.ts): messages
 * are taken from the in-memory index in delivery order, each read in the attempt's view (the index
 * is a hint) and claimed if it is there, unexpired and visible. Nodes start at different points of
 * the head (receive-scan-slot.ts), so receives on different nodes rarely race for a message. It
 * stands apart from FIFO claiming (claim-fifo-groups.ts), which claims whole groups in order.
 */
import { raftqLimits } from '../base/limits.js';
import { claimOrMove, type ClaimState } from './claim-state.js';
import type { IndexedMessage, StandardPartitionIndex } from './index/standard-partition-index.js';
import { isExpired } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import { firstPageOffset, rotatedRows, type ReceiveScanSlot } from './receive-scan-slot.js';

/** What standard claiming needs from the node beyond the attempt. */
export interface StandardClaimParts {
  /** Where this node starts in the head of the queue. */
  readonly scanSlot: ReceiveScanSlot;
  /** The last commit timestamp the node's indexes have heard of now (QueueIndexes.heardThroughTsUs). */
  readonly heardThroughTsUs: () => number;
  /** Makes a claim's receipt token. */
  readonly newId: () => string;
}

/**
 * Standard queue: takes messages in delivery order. Nodes start at different points of the head
 * (receive-scan-slot.ts), so receives on different nodes rarely race for a message.
 */
export async function claimFromMessages(
  state: ClaimState,
  partition: number,
  index: StandardPartitionIndex,
  parts: StandardClaimParts,
): Promise<void> {
  const rowsMax = raftqLimits.receiveScanRowsMax.value;
  const offset = firstPageOffset(parts.scanSlot, state.wanted, Number.MAX_SAFE_INTEGER);
  const head: IndexedMessage[] = [];
  while (head.length < offset + state.wanted) {
    const message = takeMessage(state, index);
    if (message === undefined) break;
    head.push(message);
  }
  // The head's rows are read together: messages sent one after another lie side by side.
  const headRows = await state.queue.messages.readMany(
    state.view,
    partition,
    head.map((candidate) => ({
      messageId: candidate.messageId,
      isNeverReceived: isNeverReceived(state, candidate, parts),
    })),
  );
  const headRead = head.map((candidate, i) => ({ candidate, message: headRows[i] }));
  for (const { candidate, message } of rotatedRows(headRead, head.length === 0 ? 0 : offset % head.length)) {
    if (state.claimed.length >= state.wanted) return;
    await tryClaim(state, index, candidate, message, parts);
  }
  while (state.claimed.length < state.wanted && state.rowsExamined < rowsMax) {
    const candidate = takeMessage(state, index);
    if (candidate === undefined) return;
    const message = await state.queue.messages.read(state.view, partition, candidate.messageId, {
      isNeverReceived: isNeverReceived(state, candidate, parts),
    });
    await tryClaim(state, index, candidate, message, parts);
  }
}

/**
 * The index's "never received" (no state row to read) holds for the view only once the index has
 * heard every batch the view holds, i.e. the view's commit timestamp.
 */
function isNeverReceived(state: ClaimState, candidate: IndexedMessage, parts: StandardClaimParts): boolean {
  return candidate.isNeverReceived && state.view.ts <= parts.heardThroughTsUs();
}

function takeMessage(state: ClaimState, index: StandardPartitionIndex): IndexedMessage | undefined {
  // isExpired: expired once nowMs >= retentionStartMs + retention, i.e. retentionStartMs < nowMs - retention + 1.
  const expiredBeforeMs = state.nowMs - state.queue.meta.config.messageRetentionSeconds * 1000 + 1;
  const message = index.take(state.nowMs, expiredBeforeMs);
  if (message !== undefined) state.taken.push(() => index.release(message));
  return message;
}

/** Claims `candidate`, read in the attempt's view as `message` (undefined: its data row is gone). */
async function tryClaim(
  state: ClaimState,
  index: StandardPartitionIndex,
  candidate: IndexedMessage,
  message: StoredMessage | undefined,
  parts: StandardClaimParts,
): Promise<void> {
  state.rowsExamined++;
  if (message === undefined) {
    // Gone in a view that includes the batch that indexed it: the index missed its removal.
    if (candidate.addedInBatch <= state.batchAtView) index.dropPhantom(candidate);
    return;
  }
  if (isExpired(message.record, state.queue.meta.config.messageRetentionSeconds, state.nowMs)) {
    index.markExpired(candidate);
    return;
  }
  // In flight as the view has it (the index lags the view by at most one batch).
  if (message.record.visibleAtMs > state.nowMs) return;
  await claimOrMove(state, message, parts.newId);
}
