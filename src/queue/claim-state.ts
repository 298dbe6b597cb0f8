/**
 * What one receive attempt (claim-messages.ts) carries while it claims, and the claim of one
 * message. Standard claiming (claim-standard-messages.ts) and FIFO group claiming
 * (claim-fifo-groups.ts) find candidates differently but claim each one the same way, here.
 */
import type { ReadView, TxnWrite } from '../storage/txn.js';
import type { DeadLetterMover } from './dead-letter-move.js';
import { withReceiveFields, type MessageRecord } from './message-record.js';
import type { StoredMessage } from './message-store.js';
import type { LoadedQueue } from './queue-context.js';

export interface ClaimState {
  readonly queue: LoadedQueue;
  readonly view: ReadView;
  readonly nowMs: number;
  readonly visibilityTimeoutMs: number;
  readonly wanted: number;
  readonly readKeys: Uint8Array[];
  readonly writes: TxnWrite[];
  readonly claimed: MessageRecord[];
  readonly mover: DeadLetterMover;
  /** Releases of what this attempt took from the indexes; run when the attempt ends. */
  readonly taken: Array<() => void>;
  /** Applied batches this node had heard of when the attempt's view was taken. */
  readonly batchAtView: number;
  rowsExamined: number;
}

/**
 * Claims the message (a new state row and its vis row moved; the data row stays as it is) or
 * moves it to the dead-letter queue. Both decide from the data and state rows: both are read.
 * `newId` makes the claim's receipt token.
 */
export async function claimOrMove(state: ClaimState, message: StoredMessage, newId: () => string): Promise<void> {
  const { messages } = state.queue;
  const { record } = message;
  state.readKeys.push(...message.readKeys);
  if (state.mover.isDue(record) && (await state.mover.maybeMove(message, state))) return;
  const claimed = withReceiveFields(record, {
    visibleAtMs: state.nowMs + state.visibilityTimeoutMs,
    receiveCount: record.receiveCount + 1,
    firstReceiveAtMs: record.firstReceiveAtMs ?? state.nowMs,
    claimedAtMs: state.nowMs,
    receiptToken: newId(),
  });
  state.writes.push(...messages.receiveStateWrites(message, claimed));
  state.claimed.push(claimed);
}
