import { encodeConfChange } from './conf-change.js';
import { ConfChangeInvalidError, ProposalDroppedError } from './errors.js';
import { abortLeaderTransfer } from './leader-transfer.js';
import type { Raft } from './raft.js';
import { bcastAppend, maybeCommitAsLeader, onLeaderCommitAdvanced } from './replication.js';
import type { ConfChange, ConfState, NodeId } from './types.js';
import { EntryType, MessageType } from './types.js';

/**
 * Single-server membership changes (Raft thesis §4.1). A change takes effect when the runtime
 * applies its entry and calls applyConfChange. Two rules keep any two consecutive
 * configurations' majorities overlapping:
 * - at most one change is pending: a new one waits until the previous one is applied;
 * - a new leader proposes none until it has committed an entry of its own term (otherwise a
 *   change from a deposed leader's uncommitted tail could combine with ours, see the raft-dev
 *   errata of 2015).
 */
export function proposeConfChange(r: Raft, change: ConfChange): void {
  r.assertCanPropose();
  if (r.pendingConfIndex > r.log.applied) throw new ProposalDroppedError('confChangePending', r.leader);
  if (!r.hasCommittedEntryInCurrentTerm()) throw new ProposalDroppedError('noCommitInTerm', r.leader);
  validateConfChange(r, change);
  if (!r.appendEntries([{ type: EntryType.ConfChange, data: encodeConfChange(change) }])) {
    throw new ProposalDroppedError('uncommittedBytesMax', r.leader);
  }
  r.pendingConfIndex = r.log.lastIndex();
  bcastAppend(r);
}

function validateConfChange(r: Raft, change: ConfChange): void {
  const id = change.nodeId;
  const invalid = (why: string): never => {
    throw new ConfChangeInvalidError(change.kind, id, why);
  };
  if (id === '') invalid('the node id is empty');
  switch (change.kind) {
    case 'addVoter':
      if (r.tracker.isVoter(id)) invalid('it is already a voter');
      return;
    case 'addLearner':
      if (r.tracker.isVoter(id))
        invalid('demoting a voter is not a single-server change; remove it, then add it as a learner');
      if (r.tracker.isLearner(id)) invalid('it is already a learner');
      return;
    case 'removeNode':
      if (!r.tracker.isMember(id)) invalid('it is not a member');
      if (r.tracker.isVoter(id) && r.tracker.voterCount() === 1) invalid('it is the last voter');
      return;
  }
}

/**
 * The runtime applied a ConfChange entry. Every node updates its configuration; the leader also
 * starts replicating to a new member, commits what a smaller quorum now allows, and steps down
 * if the change removed it (thesis §4.2.2: it managed the cluster until the change committed).
 */
export function applyConfChange(r: Raft, change: ConfChange): ConfState {
  r.tracker.applyConfChange(change, r.log.lastIndex() + 1);
  if (change.kind === 'removeNode' && change.nodeId === r.leadTransferee) abortLeaderTransfer(r);
  if (r.role === 'leader') {
    if (change.kind === 'removeNode' && change.nodeId === r.id) {
      stepDownAfterRemoval(r);
    } else if (maybeCommitAsLeader(r)) {
      onLeaderCommitAdvanced(r);
    } else {
      bcastAppend(r);
    }
  }
  return r.tracker.confState();
}

/**
 * The removed leader hands over at once instead of leaving the cluster leaderless for an
 * election timeout: TimeoutNow to the voter with the longest log, which campaigns and, holding
 * every committed entry, wins unless another voter has more.
 */
function stepDownAfterRemoval(r: Raft): void {
  let successor: NodeId | '' = '';
  let successorMatch = -1;
  for (const id of r.tracker.voterIds()) {
    const match = r.tracker.progress.get(id)?.match ?? 0;
    if (match > successorMatch) {
      successor = id;
      successorMatch = match;
    }
  }
  if (successor !== '') r.send({ type: MessageType.TimeoutNow, to: successor });
  r.becomeFollower(r.term, '');
}
