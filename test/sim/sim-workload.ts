import type { NodeId } from '../../src/raft/types.js';

/**
 * The clients of a run: each proposal carries a unique value (`v17`) and waits at the node it was
 * given to; that node acknowledges it when it applies the entry carrying it. A crash of that node
 * leaves the outcome unknown (the client times out), which is allowed; losing an acknowledged
 * value is not.
 */
export class SimWorkload {
  private nextValue = 1;
  private nextRead = 1;
  private readonly pendingAt = new Map<string, NodeId>();
  newValue(): string {
    return `v${this.nextValue++}`;
  }

  newReadCtx(nodeId: NodeId): string {
    return `r${nodeId}.${this.nextRead++}`;
  }

  proposed(value: string, nodeId: NodeId): void {
    this.pendingAt.set(value, nodeId);
  }

  /** The node applied `value`: returns true if it acknowledges it to the client now. */
  appliedAt(value: string, nodeId: NodeId): boolean {
    if (this.pendingAt.get(value) !== nodeId) return false;
    this.pendingAt.delete(value);
    return true;
  }

  /** The node crashed: its clients never hear back. */
  forgetPendingAt(nodeId: NodeId): void {
    for (const [value, at] of this.pendingAt) if (at === nodeId) this.pendingAt.delete(value);
  }

  get pendingCount(): number {
    return this.pendingAt.size;
  }
}
