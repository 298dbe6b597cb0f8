import type { NodeId } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';
import type { LogView } from './log-view.js';

interface CommittedEntry {
  readonly term: number;
  /**
   * The lowest term any node was in when it recorded this entry as committed. The entry was
   * committed by a leader of that term or earlier, so every leader of this term or later must
   * hold it.
   */
  observedTerm: number;
}

/**
 * Raft §5.4, Figure 3: "Leader Completeness: if a log entry is committed in a given term, then
 * that entry will be present in the logs of the leaders for all higher-numbered terms."
 *
 * What counts as committed is what nodes wrote to durable storage as their commit index: by the
 * Ready contract that is never ahead of what a quorum has durably stored.
 */
export class LeaderCompletenessChecker {
  /** committed[i] describes entry i; holes are entries known committed only through a snapshot. */
  private readonly committed: (CommittedEntry | undefined)[] = [];
  private readonly checkedUpToByLeader = new Map<string, number>();

  /** Node `nodeId`, in `nodeTerm`, durably advanced its commit index from `fromIndex` to `toIndex`. */
  observeCommit(nodeId: NodeId, nodeTerm: number, fromIndex: number, toIndex: number, log: LogView): void {
    for (let index = Math.max(fromIndex, log.snapshotIndex) + 1; index <= toIndex; index++) {
      const term = log.termAt(index);
      if (term === undefined) {
        throw new InvariantViolationError(
          'leaderCompleteness',
          `node ${nodeId} committed index ${index}, which its log does not hold (last index ${log.lastIndex})`,
        );
      }
      const known = this.committed[index];
      if (known === undefined) this.committed[index] = { term, observedTerm: nodeTerm };
      else if (known.term !== term) {
        throw new InvariantViolationError(
          'leaderCompleteness',
          `entry ${index} was committed with term ${known.term}, but node ${nodeId} committed term ${term} there`,
        );
      } else known.observedTerm = Math.min(known.observedTerm, nodeTerm);
    }
  }

  get committedIndexMax(): number {
    return this.committed.length - 1;
  }

  /** Called whenever `leaderId` is seen as leader of `term`; checks entries committed since last time. */
  observeLeader(leaderId: NodeId, term: number, log: LogView): void {
    const key = `${leaderId}/${term}`;
    const checkedUpTo = this.checkedUpToByLeader.get(key) ?? 0;
    const last = this.committedIndexMax;
    for (let index = Math.max(checkedUpTo, log.snapshotIndex) + 1; index <= last; index++) {
      const known = this.committed[index];
      if (known === undefined || known.observedTerm > term) continue;
      const held = log.termAt(index);
      if (held !== known.term) {
        throw new InvariantViolationError(
          'leaderCompleteness',
          `leader ${leaderId} of term ${term} ${held === undefined ? 'lacks' : `has term ${held} at`} committed entry ${index} (term ${known.term})`,
        );
      }
    }
    if (last > checkedUpTo) this.checkedUpToByLeader.set(key, last);
  }
}
