import type { Message } from '@aws-sdk/client-sqs';

/**
 * Plays a consumer that sometimes crashes mid-batch: every `everyNth` delivery, counted across all
 * batches, is abandoned if it is a first delivery, and so is the rest of its group in that batch
 * (a FIFO consumer must not handle a later message of a group whose earlier one it dropped). What
 * is abandoned comes back after the visibility timeout; the order tracker checks it comes first.
 * Messages must be received with their system attributes (MessageGroupId, ApproximateReceiveCount).
 */
export class DeliveryAbandoner {
  private deliveryCount = 0;

  constructor(private readonly everyNth: number) {}

  /** The messages of `batch` the consumer handles, in order; the others it abandons. */
  handledOf(batch: readonly Message[]): Message[] {
    const abandonedGroups = new Set<string>();
    const handled: Message[] = [];
    for (const message of batch) {
      const group = message.Attributes?.MessageGroupId ?? '';
      this.deliveryCount++;
      const isAbandoned =
        abandonedGroups.has(group) ||
        (message.Attributes?.ApproximateReceiveCount === '1' && this.deliveryCount % this.everyNth === 0);
      if (isAbandoned) abandonedGroups.add(group);
      else handled.push(message);
    }
    return handled;
  }
}
