import type { ProgressState } from './progress.js';
import type { Raft } from './raft.js';
import type { ConfState, HardState, NodeId, StateRole } from './types.js';

export interface ProgressStatus {
  readonly match: number;
  readonly next: number;
  readonly state: ProgressState;
  readonly isLearner: boolean;
  /** Append messages and bytes in flight (replicate state). */
  readonly inflightMessages: number;
  readonly inflightBytes: number;
  readonly isRecentlyActive: boolean;
}

export interface RaftStatus {
  readonly id: NodeId;
  readonly term: number;
  readonly vote: NodeId | '';
  readonly commit: number;
  /** term, vote and commit together, as the next Ready would persist them. */
  readonly hardState: HardState;
  readonly applied: number;
  readonly lastIndex: number;
  readonly leader: NodeId | '';
  readonly role: StateRole;
  readonly confState: ConfState;
  /** This node is a learner in its own configuration (role 'learner' of /status, docs/OPERATIONS.md). */
  readonly isLearner: boolean;
  /** Transfer target while a leadership transfer is in progress, else ''. */
  readonly leadTransferee: NodeId | '';
  /** Replication progress per member; empty unless this node is the leader. */
  readonly progress: ReadonlyMap<NodeId, ProgressStatus>;
}

export function raftStatus(r: Raft): RaftStatus {
  const progress = new Map<NodeId, ProgressStatus>();
  if (r.role === 'leader') {
    for (const id of r.tracker.memberIds()) {
      const p = r.tracker.progress.get(id);
      if (p === undefined) continue;
      progress.set(id, {
        match: p.match,
        next: p.next,
        state: p.state,
        isLearner: p.isLearner,
        inflightMessages: p.inflights.count(),
        inflightBytes: p.inflights.bytes(),
        isRecentlyActive: p.isRecentlyActive,
      });
    }
  }
  return {
    id: r.id,
    term: r.term,
    vote: r.vote,
    commit: r.log.committed,
    hardState: r.hardState(),
    applied: r.log.applied,
    lastIndex: r.log.lastIndex(),
    leader: r.leader,
    role: r.role,
    confState: r.tracker.confState(),
    isLearner: r.tracker.isLearner(r.id),
    leadTransferee: r.leadTransferee,
    progress,
  };
}
