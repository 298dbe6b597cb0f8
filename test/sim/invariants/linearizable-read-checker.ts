import type { NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';

/**
 * A ReadIndex read is linearizable (Raft thesis §6.4): the index it returns must cover every write
 * acknowledged before the read was requested, or the read could miss a write that completed
 * before it began.
 */
export class LinearizableReadChecker {
  private readonly requiredIndexByCtx = new Map<string, number>();

  observeReadRequest(ctx: string, ackedIndexMax: number): void {
    this.requiredIndexByCtx.set(ctx, ackedIndexMax);
  }

  observeReadState(nodeId: NodeId, ctx: string, index: number): void {
    const required = this.requiredIndexByCtx.get(ctx);
    if (required === undefined) {
      throw new InvariantViolationError(
        'linearizableReads',
        `node ${nodeId} answered read ${ctx}, which nobody requested`,
      );
    }
    if (index < required) {
      throw new InvariantViolationError(
        'linearizableReads',
        `node ${nodeId} answered read ${ctx} at index ${index}, but index ${required} was acknowledged before it was requested`,
      );
    }
  }
}
