import { assert } from '../base/assert.js';
import { payloadSizeBytes } from './entry-size.js';
import { hup, handleVoteRequest, handleVoteResponse } from './election.js';
import { ProposalDroppedError } from './errors.js';
import { abortLeaderTransfer, handleTimeoutNow, handleTransferLeader } from './leader-transfer.js';
import { handleReadIndexRequest, handleReadIndexResponse } from './read-index.js';
import { type ResolvedRaftConfig } from './raft-config.js';
import { isTransferCampaign, outgoingMessage } from './raft-message.js';
import { RaftLog } from './raft-log.js';
import { ProgressTracker } from './progress-tracker.js';
import { ReadOnly } from './read-only.js';
import {
  bcastAppend,
  bcastHeartbeat,
  handleAppendEntries,
  handleAppendResponse,
  handleHeartbeat,
  handleHeartbeatResponse,
  handleSnapshot,
} from './replication.js';
import type { Entry, HardState, NodeId, RaftMessage, ReadState, SoftState, StateRole } from './types.js';
import { EntryType, MessageType } from './types.js';

/**
 * The Raft state machine of one node. It is driven by RawNode and never does I/O: everything it
 * wants done leaves through `messages`, `readStates` and the log's unstable part, which RawNode
 * packs into a Ready. Role-specific behaviour lives in election.ts, replication.ts,
 * read-index.ts, membership.ts and leader-transfer.ts, as functions over this state.
 */
export class Raft {
  readonly id: NodeId;
  readonly log: RaftLog;
  tracker: ProgressTracker;

  term = 0;
  vote: NodeId | '' = '';
  leader: NodeId | '' = '';
  role: StateRole = 'follower';

  /** Ticks since the last valid message from a leader (follower) or since the last CheckQuorum round (leader). */
  electionElapsed = 0;
  heartbeatElapsed = 0;
  randomizedElectionTimeoutTicks = 0;

  /** The node leadership is being transferred to, or ''. Proposals are refused meanwhile. */
  leadTransferee: NodeId | '' = '';
  /** Index of the latest conf change the leader appended; a new one waits until it is applied. */
  pendingConfIndex = 0;
  /** Payload bytes the leader appended and has not yet seen committed. */
  uncommittedBytes = 0;
  readOnly = new ReadOnly();
  /** ReadIndex requests that arrived before the leader committed an entry of its term (thesis §6.4). */
  pendingReadIndexMessages: RaftMessage[] = [];

  /** Outbox, emptied into each Ready. */
  messages: RaftMessage[] = [];
  readStates: ReadState[] = [];

  constructor(readonly config: ResolvedRaftConfig) {
    this.id = config.id;
    const storage = config.storage;
    const { hardState, confState } = storage.initialState();
    this.log = new RaftLog(storage, config.readyCommittedBytesMax, config.faults.applyBeforeCommit === true);
    const firstIndex = storage.firstIndex();
    assert(
      hardState.commit <= this.log.lastIndex(),
      () => `hard state commit ${hardState.commit} is past the last index ${this.log.lastIndex()}`,
    );
    this.log.commitTo(Math.max(hardState.commit, firstIndex - 1));
    if (config.applied !== null && config.applied > this.log.applied) this.log.appliedTo(config.applied);
    this.tracker = this.newTracker(confState);
    this.becomeFollower(hardState.term, '');
    this.vote = hardState.vote;
  }

  newTracker(confState: { voters: readonly NodeId[]; learners: readonly NodeId[] }): ProgressTracker {
    return new ProgressTracker(confState, this.log.lastIndex() + 1, {
      inflightMessagesMax: this.config.inflightMessagesMax,
      inflightBytesMax: this.config.inflightBytesMax,
    });
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.log.committed };
  }

  softState(): SoftState {
    return { leader: this.leader, role: this.role };
  }

  /** Queues a message from this node, stamped with the current term unless the caller set one. */
  send(fields: Partial<RaftMessage> & Pick<RaftMessage, 'type' | 'to'>): void {
    this.messages.push(outgoingMessage(fields, this.id, this.term));
  }

  /** Only a voter with no snapshot waiting to be installed may stand for election. */
  isPromotable(): boolean {
    return this.tracker.isVoter(this.id) && this.log.unstable.snapshot === null;
  }

  /** Thesis §6.4: until then the leader does not know the commit index of the cluster. */
  hasCommittedEntryInCurrentTerm(): boolean {
    return this.log.maybeTerm(this.log.committed) === this.term;
  }

  // ---- role transitions ------------------------------------------------------------------

  becomeFollower(term: number, leader: NodeId | ''): void {
    this.reset(term);
    this.role = 'follower';
    this.leader = leader;
  }

  becomePreCandidate(): void {
    assert(this.role !== 'leader', 'a leader cannot become a pre-candidate');
    // Raft thesis §9.6: a pre-election changes neither term nor vote, so losing it costs nothing.
    this.tracker.resetVotes();
    this.role = 'precandidate';
    this.leader = '';
  }

  becomeCandidate(): void {
    assert(this.role !== 'leader', 'a leader cannot become a candidate');
    this.reset(this.term + 1);
    this.vote = this.id;
    this.role = 'candidate';
  }

  becomeLeader(): void {
    assert(this.role === 'candidate', () => `only a candidate becomes leader, not a ${this.role}`);
    this.reset(this.term);
    this.role = 'leader';
    this.leader = this.id;
    this.tracker.progress.get(this.id)?.becomeReplicate();
    // Conf changes already in the log may be uncommitted: none may be proposed until all are applied.
    this.pendingConfIndex = this.log.lastIndex();
    // Raft §8: a blank no-op entry at the start of the term lets the leader learn what is committed.
    const isAppended = this.appendEntries([{ type: EntryType.Normal, data: new Uint8Array(0) }]);
    assert(isAppended, 'the no-op entry of a new term must never be refused');
  }

  private reset(term: number): void {
    if (term !== this.term) {
      this.term = term;
      this.vote = '';
    }
    this.leader = '';
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.resetRandomizedElectionTimeout();
    abortLeaderTransfer(this);
    this.tracker.resetVotes();
    this.tracker.resetProgress({
      nextIndex: this.log.lastIndex() + 1,
      selfId: this.id,
      selfMatch: this.log.persistedLastIndex(),
    });
    this.pendingConfIndex = 0;
    this.uncommittedBytes = 0;
    this.readOnly = new ReadOnly();
    this.pendingReadIndexMessages = [];
  }

  /** Raft §5.2: a timeout drawn from [base, 2 * base) so that split votes are rare. */
  private resetRandomizedElectionTimeout(): void {
    const base = this.config.electionTimeoutTicks;
    this.randomizedElectionTimeoutTicks = base + this.config.prng.intBelow(base);
  }

  // ---- the leader's log ------------------------------------------------------------------

  /**
   * Appends new entries at the end of the leader's log. Returns false, appending nothing, when
   * they would push the uncommitted payload over its bound (one batch is always let through
   * when nothing is uncommitted, so that a large entry cannot be stuck forever).
   */
  appendEntries(entries: readonly { type: EntryType; data: Uint8Array }[]): boolean {
    const sizeBytes = payloadSizeBytes(entries as Entry[]);
    if (
      this.uncommittedBytes > 0 &&
      sizeBytes > 0 &&
      this.uncommittedBytes + sizeBytes > this.config.uncommittedBytesMax
    ) {
      return false;
    }
    this.uncommittedBytes += sizeBytes;
    const lastIndex = this.log.lastIndex();
    this.log.append(entries.map((e, i) => ({ term: this.term, index: lastIndex + 1 + i, type: e.type, data: e.data })));
    return true;
  }

  reduceUncommittedBytes(committed: readonly Entry[]): void {
    if (this.role !== 'leader') return;
    this.uncommittedBytes = Math.max(0, this.uncommittedBytes - payloadSizeBytes(committed));
  }

  /** Refuses what only a leader that is not handing over may accept. */
  assertCanPropose(): void {
    if (this.role !== 'leader' || !this.tracker.isMember(this.id)) {
      throw new ProposalDroppedError('notLeader', this.leader === this.id ? '' : this.leader);
    }
    if (this.leadTransferee !== '') throw new ProposalDroppedError('transferInProgress', this.leader);
  }

  propose(data: Uint8Array): void {
    this.assertCanPropose();
    if (!this.appendEntries([{ type: EntryType.Normal, data }]))
      throw new ProposalDroppedError('uncommittedBytesMax', this.leader);
    bcastAppend(this);
  }

  // ---- time ------------------------------------------------------------------------------

  tick(): void {
    if (this.role === 'leader') this.tickHeartbeat();
    else this.tickElection();
  }

  private tickElection(): void {
    this.electionElapsed++;
    if (this.isPromotable() && this.electionElapsed >= this.randomizedElectionTimeoutTicks) {
      this.electionElapsed = 0;
      hup(this, { isTransfer: false });
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.config.electionTimeoutTicks) {
      this.electionElapsed = 0;
      if (this.config.checkQuorum) {
        // Raft thesis §6.2: a leader that cannot reach a majority for an election timeout steps
        // down, so clients stop waiting on it and a partitioned leader stops serving reads.
        const isActive = this.tracker.isQuorumActive(this.id);
        for (const [id, progress] of this.tracker.progress) if (id !== this.id) progress.isRecentlyActive = false;
        if (!isActive) {
          this.becomeFollower(this.term, '');
          return;
        }
      }
      // Thesis §3.10: a transfer that did not finish within an election timeout is abandoned.
      abortLeaderTransfer(this);
    }
    if (this.heartbeatElapsed >= this.config.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      bcastHeartbeat(this);
    }
  }

  // ---- messages --------------------------------------------------------------------------

  step(m: RaftMessage): void {
    if (!this.stepTerm(m)) return;
    switch (m.type) {
      case MessageType.Vote:
      case MessageType.PreVote:
        handleVoteRequest(this, m);
        return;
      default:
        break;
    }
    if (this.role === 'leader') this.stepLeader(m);
    else if (this.role === 'follower') this.stepFollower(m);
    else this.stepCandidate(m);
  }

  /**
   * Raft §5.1: "If one server's current term is smaller than the other's, then it updates its
   * current term to the larger value. If a candidate or leader discovers that its term is out of
   * date, it immediately reverts to follower state. If a server receives a request with a stale
   * term number, it rejects the request." Returns whether the message should be processed.
   */
  private stepTerm(m: RaftMessage): boolean {
    if (m.term > this.term) {
      if (m.type === MessageType.Vote || m.type === MessageType.PreVote) {
        // Thesis §4.2.3: while a node hears from a live leader it ignores vote requests, so that
        // a removed or partitioned server cannot disrupt the cluster. A transfer overrides this.
        const isInLease =
          this.config.checkQuorum && this.leader !== '' && this.electionElapsed < this.config.electionTimeoutTicks;
        if (isInLease && !isTransferCampaignMessage(m)) return false;
      }
      if (m.type === MessageType.PreVote) {
        // A pre-vote asks about a future term; answering it must not move ours.
      } else if (m.type === MessageType.PreVoteResp && !m.reject) {
        // A grant carries the term we would campaign at; we move to it only by winning.
      } else {
        const isFromLeader =
          m.type === MessageType.App || m.type === MessageType.Heartbeat || m.type === MessageType.Snap;
        this.becomeFollower(m.term, isFromLeader ? m.from : '');
      }
      return true;
    }
    if (m.term < this.term) {
      if (
        (this.config.checkQuorum || this.config.preVote) &&
        (m.type === MessageType.App || m.type === MessageType.Heartbeat)
      ) {
        // A stale leader would never hear of our term otherwise: with PreVote and CheckQuorum
        // nobody campaigns against it, so tell it, and it steps down.
        this.send({ type: MessageType.AppResp, to: m.from });
      } else if (m.type === MessageType.PreVote) {
        this.send({ type: MessageType.PreVoteResp, to: m.from, reject: true });
      }
      return false;
    }
    return true;
  }

  private stepLeader(m: RaftMessage): void {
    switch (m.type) {
      case MessageType.AppResp:
        handleAppendResponse(this, m);
        return;
      case MessageType.HeartbeatResp:
        handleHeartbeatResponse(this, m);
        return;
      case MessageType.ReadIndex:
        handleReadIndexRequest(this, m);
        return;
      case MessageType.TransferLeader:
        handleTransferLeader(this, m);
        return;
      default:
        return;
    }
  }

  private stepCandidate(m: RaftMessage): void {
    switch (m.type) {
      case MessageType.App:
      case MessageType.Heartbeat:
      case MessageType.Snap:
        // Raft §5.2: a leader of our term exists; we lost this election.
        this.becomeFollower(m.term, m.from);
        this.stepFollower(m);
        return;
      case MessageType.VoteResp:
      case MessageType.PreVoteResp:
        handleVoteResponse(this, m);
        return;
      default:
        return;
    }
  }

  private stepFollower(m: RaftMessage): void {
    switch (m.type) {
      case MessageType.App:
        this.heardFromLeader(m.from);
        handleAppendEntries(this, m);
        return;
      case MessageType.Heartbeat:
        this.heardFromLeader(m.from);
        handleHeartbeat(this, m);
        return;
      case MessageType.Snap:
        this.heardFromLeader(m.from);
        handleSnapshot(this, m);
        return;
      case MessageType.TimeoutNow:
        handleTimeoutNow(this, m);
        return;
      case MessageType.TransferLeader:
        if (this.leader !== '') this.send({ type: MessageType.TransferLeader, to: this.leader, context: m.context });
        return;
      case MessageType.ReadIndexResp:
        handleReadIndexResponse(this, m);
        return;
      default:
        return;
    }
  }

  private heardFromLeader(leader: NodeId): void {
    this.electionElapsed = 0;
    this.leader = leader;
  }
}

function isTransferCampaignMessage(m: RaftMessage): boolean {
  return m.type === MessageType.Vote && m.context.length > 0 && isTransferCampaign(m);
}
