import type { NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';
import type { LogView } from './log-view.js';

interface Ack {
  readonly value: string;
  readonly index: number;
  readonly term: number;
  /** The acknowledging node's term: every leader of this term or later must hold the entry. */
  readonly ackTerm: number;
}

/** What the durability check reads of a node's applied state. */
export interface AppliedView {
  readonly appliedIndex: number;
  valueAt(index: number): string | undefined;
}

/**
 * Nothing acknowledged to a client is lost: an acknowledged value stays in the log of every later
 * leader (or in the state its snapshot carries), and in the end every member has applied it at
 * the index it was acknowledged at. Independent of what nodes say they committed: the ground
 * truth here is what the client was told.
 */
export class DurabilityChecker {
  private readonly acks: Ack[] = [];
  private readonly checkedCountByLeader = new Map<string, number>();
  private ackedIndexMaxSoFar = 0;

  observeAck(value: string, index: number, term: number, ackTerm: number): void {
    this.acks.push({ value, index, term, ackTerm });
    this.ackedIndexMaxSoFar = Math.max(this.ackedIndexMaxSoFar, index);
  }

  get ackCount(): number {
    return this.acks.length;
  }

  /** The highest index acknowledged so far: what a read started now must observe. */
  get ackedIndexMax(): number {
    return this.ackedIndexMaxSoFar;
  }

  observeLeader(leaderId: NodeId, term: number, log: LogView, applied: AppliedView): void {
    const key = `${leaderId}/${term}`;
    const checkedCount = this.checkedCountByLeader.get(key) ?? 0;
    for (let i = checkedCount; i < this.acks.length; i++) {
      const ack = this.acks[i] as Ack;
      if (ack.ackTerm > term) continue;
      if (ack.index > log.snapshotIndex) {
        const held = log.termAt(ack.index);
        if (held !== ack.term) {
          throw new InvariantViolationError(
            'durability',
            `leader ${leaderId} of term ${term} ${held === undefined ? 'lacks' : `has term ${held} at`} index ${ack.index}, where acknowledged value ${ack.value} (term ${ack.term}) was`,
          );
        }
      } else if (applied.appliedIndex >= ack.index && applied.valueAt(ack.index) !== ack.value) {
        throw new InvariantViolationError(
          'durability',
          `leader ${leaderId} of term ${term} applied ${applied.valueAt(ack.index) ?? 'nothing'} at index ${ack.index}, where acknowledged value ${ack.value} was`,
        );
      }
    }
    this.checkedCountByLeader.set(key, this.acks.length);
  }

  /** After healing and draining: a member must have applied every acknowledged value. */
  checkMemberApplied(nodeId: NodeId, applied: AppliedView): void {
    for (const ack of this.acks) {
      if (applied.appliedIndex < ack.index) {
        throw new InvariantViolationError(
          'durability',
          `node ${nodeId} applied only up to ${applied.appliedIndex}, short of acknowledged value ${ack.value} at index ${ack.index}`,
        );
      }
      const value = applied.valueAt(ack.index);
      if (value !== ack.value) {
        throw new InvariantViolationError(
          'durability',
          `node ${nodeId} applied ${value ?? 'nothing'} at index ${ack.index}, where acknowledged value ${ack.value} was`,
        );
      }
    }
  }
}
