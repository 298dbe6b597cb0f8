/**
 * What the queue index hears of an applied write to a row it mirrors, decoded once from the key
 * (key-layout.ts): a vis row ("vis", partition, visibleAtMs, order, messageId), a state row
 * ("state", partition, messageId) → the receive state, whose visibility time overrides the vis
 * row's once the message was received, or a FIFO group row ("group", partition, groupId,
 * sequence) → messageId.
 */
/**
 * A vis row put or delete. A message has one vis row at a time, so its id and the row's
 * `visibleAtMs` name the row (its order is the message's own): the index keeps that number, not
 * the key's bytes.
 */
export type VisRowEvent =
  | {
      readonly kind: 'put';
      readonly visibleAtMs: number;
      readonly order: number | bigint;
      readonly messageId: string;
      readonly isNeverReceived: boolean;
      readonly retentionStartMs: number | undefined;
    }
  | { readonly kind: 'delete'; readonly visibleAtMs: number; readonly messageId: string };

/** A state row put: the message was received and is visible at `visibleAtMs`. Its deletes go with the message's. */
export interface StateRowEvent {
  readonly messageId: string;
  readonly visibleAtMs: number;
}

export type GroupRowEvent =
  | { readonly kind: 'put'; readonly groupId: string; readonly sequence: bigint; readonly messageId: string }
  | { readonly kind: 'delete'; readonly groupId: string; readonly sequence: bigint };

/** One partition's index, fed in apply order; `endBatch` after each applied batch. */
export interface PartitionIndexFeed {
  applyVis(event: VisRowEvent, batch: number): void;
  applyState(event: StateRowEvent): void;
  applyGroup(event: GroupRowEvent, batch: number): void;
  endBatch(): void;
}
