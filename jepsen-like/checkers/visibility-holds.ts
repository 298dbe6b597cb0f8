import type { OperationPair } from '../history/operation-pairs.js';
import { visibilityChangesOf, type ChangeVisibilityInvoke, type Delivery } from './queue-ops.js';

/**
 * How long a delivery certainly kept its message from other consumers. A receive claims the
 * message for its visibility timeout from some instant between its invocation and completion,
 * so the hold lasts at least until invocation + timeout, less the clock allowance (the timeout
 * runs on the serving node's cluster clock). A ChangeMessageVisibility with the delivery's handle
 * that did not definitely fail may have cut it short: from its invocation, the new timeout. (One
 * that lengthened the hold is not counted: it may have come after the hold had run out.)
 */
export class VisibilityHolds {
  private readonly changesByHandle = new Map<string, number>();

  constructor(
    pairs: readonly OperationPair[],
    queue: string | undefined,
    private readonly clockAllowanceMs: number,
  ) {
    for (const change of visibilityChangesOf(pairs, queue)) {
      if (change.outcome === 'fail') continue;
      const args = change.invoke.value as ChangeVisibilityInvoke;
      const endsMs = change.invokeMs + args.visibilityTimeoutSeconds * 1000;
      this.changesByHandle.set(
        args.receiptHandle,
        Math.min(this.changesByHandle.get(args.receiptHandle) ?? Number.POSITIVE_INFINITY, endsMs),
      );
    }
  }

  /** The earliest instant the message could have been visible again, as far as this delivery goes. */
  endsEarliestMs(d: Delivery): number {
    const byTimeoutMs = d.receive.invokeMs + d.visibilityTimeoutSeconds * 1000;
    const byChangeMs = this.changesByHandle.get(d.message.receiptHandle) ?? Number.POSITIVE_INFINITY;
    return Math.min(byTimeoutMs, byChangeMs) - this.clockAllowanceMs;
  }

  /** Whether a ChangeMessageVisibility may have shortened this delivery's hold. */
  isChanged(d: Delivery): boolean {
    return this.changesByHandle.has(d.message.receiptHandle);
  }
}
