import type { Raft } from './raft.js';
import { transferCampaignContext } from './raft-message.js';
import { bcastAppend } from './replication.js';
import type { RaftMessage } from './types.js';
import { EntryType, MessageType } from './types.js';

const noContext = new Uint8Array(0);

/**
 * Starts an election if this node may: a voter, not already leader, with no committed
 * membership change still unapplied (it would count votes by a configuration about to change). With PreVote on, a
 * normal election starts with a pre-election; a transfer (TimeoutNow) skips it.
 */
export function hup(r: Raft, options: { isTransfer: boolean }): void {
  if (r.role === 'leader' || !r.isPromotable()) return;
  if (options.isTransfer) {
    // A transfer target may not have applied the change that made it the successor (a leader
    // removing itself). Campaigning then is still safe: with one single-server change at a
    // time, majorities of the old and new configurations overlap.
    campaign(r, 'transfer');
    return;
  }
  if (hasUnappliedConfChange(r)) return;
  campaign(r, r.config.preVote ? 'preElection' : 'election');
}

type CampaignKind = 'preElection' | 'election' | 'transfer';

/**
 * Raft §5.2: "To begin an election, a follower increments its current term and transitions to
 * candidate state. It then votes for itself and issues RequestVote RPCs in parallel to each of
 * the other servers in the cluster." A pre-election does the same at term + 1 without moving
 * the term or casting a vote (thesis §9.6).
 */
function campaign(r: Raft, kind: CampaignKind): void {
  let voteTerm: number;
  let type: MessageType;
  if (kind === 'preElection') {
    r.becomePreCandidate();
    voteTerm = r.term + 1;
    type = MessageType.PreVote;
  } else {
    r.becomeCandidate();
    voteTerm = r.term;
    type = MessageType.Vote;
  }
  r.tracker.recordVote(r.id, true);
  if (r.tracker.tallyVotes().result === 'won') {
    // A single-voter cluster wins at once.
    if (kind === 'preElection') campaign(r, 'election');
    else becomeLeaderAndAnnounce(r);
    return;
  }
  const lastIndex = r.log.lastIndex();
  const lastTerm = r.log.lastTerm();
  for (const id of r.tracker.voterIds()) {
    if (id === r.id) continue;
    r.send({
      type,
      to: id,
      term: voteTerm,
      index: lastIndex,
      logTerm: lastTerm,
      context: kind === 'transfer' ? transferCampaignContext : noContext,
    });
  }
}

/**
 * Raft §5.2: "Each server will vote for at most one candidate in a given term, on a
 * first-come-first-served basis"; §5.4.1: "the voter denies its vote if its own log is more
 * up-to-date than that of the candidate."
 */
export function handleVoteRequest(r: Raft, m: RaftMessage): void {
  const isPreVote = m.type === MessageType.PreVote;
  const responseType = isPreVote ? MessageType.PreVoteResp : MessageType.VoteResp;
  const faults = r.config.faults;
  const canVote =
    r.vote === m.from ||
    (r.vote === '' && r.leader === '') ||
    // A pre-vote for a later term is granted whatever we did in this one: it binds nothing.
    (isPreVote && m.term > r.term) ||
    faults.grantVoteTwicePerTerm === true;
  const isUpToDate = faults.skipLogUpToDateCheck === true || r.log.isUpToDate(m.index, m.logTerm);
  if (canVote && isUpToDate) {
    // The grant carries the candidate's term: for a pre-vote that is the future term it asked about.
    r.send({ type: responseType, to: m.from, term: m.term });
    if (!isPreVote) {
      r.electionElapsed = 0;
      r.vote = m.from;
    }
  } else {
    r.send({ type: responseType, to: m.from, reject: true });
  }
}

export function handleVoteResponse(r: Raft, m: RaftMessage): void {
  const expected = r.role === 'precandidate' ? MessageType.PreVoteResp : MessageType.VoteResp;
  if (m.type !== expected) return;
  r.tracker.recordVote(m.from, !m.reject);
  const { result } = r.tracker.tallyVotes();
  if (result === 'won') {
    if (r.role === 'precandidate') campaign(r, 'election');
    else becomeLeaderAndAnnounce(r);
  } else if (result === 'lost') {
    // A rejection from a higher term already made us a follower of that term (Raft.stepTerm).
    r.becomeFollower(r.term, '');
  }
}

function becomeLeaderAndAnnounce(r: Raft): void {
  r.becomeLeader();
  // Raft §5.3: the no-op goes out at once; it also tells every follower who leads.
  bcastAppend(r);
}

function hasUnappliedConfChange(r: Raft): boolean {
  const lo = r.log.applied + 1;
  const hi = r.log.committed + 1;
  if (lo >= hi) return false;
  let next = Math.max(lo, r.log.firstIndex());
  while (next < hi) {
    const entries = r.log.slice(next, hi, r.config.readyCommittedBytesMax);
    for (const entry of entries) if (entry.type === EntryType.ConfChange) return true;
    next += entries.length;
  }
  return false;
}
