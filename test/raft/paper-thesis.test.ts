import { describe, expect, it } from 'vitest';
import { ConfChangeInvalidError, ProposalDroppedError } from '../../src/raft/errors.js';
import { MessageType } from '../../src/raft/types.js';
import { NodeHarness, ofType } from './support/node-harness.js';

/**
 * Rules from Ongaro's thesis ("Consensus: Bridging Theory and Practice", 2014) that go beyond
 * the paper: leadership transfer, membership changes, disruptive servers, CheckQuorum,
 * ReadIndex and PreVote. Each test quotes (or, where marked, paraphrases) its sentence.
 */
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function settledLeader(options: ConstructorParameters<typeof NodeHarness>[0] = {}): NodeHarness {
  const node = new NodeHarness(options);
  node.becomeLeader();
  const status = node.raw.status();
  for (const id of status.confState.voters)
    if (id !== node.id) node.step({ type: MessageType.AppResp, from: id, term: status.term, index: status.lastIndex });
  expect(node.raw.status().commit).toBe(status.lastIndex);
  return node;
}

describe('thesis §3.10: leadership transfer', () => {
  // "1. The prior leader stops accepting new client requests. 2. The prior leader fully updates
  // the target server's log to match its own ... 3. The prior leader sends a TimeoutNow request
  // to the target server."
  it('the leader refuses proposals, catches the target up, then sends it TimeoutNow', () => {
    const node = settledLeader();
    node.raw.propose(bytes('x'));
    node.flush();
    node.step({ type: MessageType.AppResp, from: '3', term: 1, index: 2 });
    node.raw.transferLeader('2');
    const catchUp = node.flush();
    expect(ofType(catchUp, MessageType.TimeoutNow)).toEqual([]);
    expect(() => node.raw.propose(bytes('y'))).toThrow(ProposalDroppedError);
    const out = node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 2 });
    expect(ofType(out, MessageType.TimeoutNow).map((m) => m.to)).toEqual(['2']);
  });

  // "This request has the same effect as the target server's election timer firing: the target
  // server starts a new election (incrementing its term and becoming a candidate)."
  it('TimeoutNow makes the target campaign at once, without a pre-vote, with a vote that overrides leases', () => {
    const node = new NodeHarness({ id: '2', term: 1, preVote: true, checkQuorum: true });
    node.step({ type: MessageType.Heartbeat, from: '1', term: 1 });
    const out = node.step({ type: MessageType.TimeoutNow, from: '1', term: 1 });
    expect(node.raw.status()).toMatchObject({ role: 'candidate', term: 2 });
    expect(ofType(out, MessageType.Vote).map((m) => m.to)).toEqual(['1', '3']);
    // A follower that just heard from its leader still grants this vote.
    const voter = new NodeHarness({ id: '3', term: 1, preVote: true, checkQuorum: true });
    voter.step({ type: MessageType.Heartbeat, from: '1', term: 1 });
    const [vote] = ofType(out, MessageType.Vote).filter((m) => m.to === '3');
    expect(ofType(voter.step(vote!), MessageType.VoteResp).map((m) => m.reject)).toEqual([false]);
  });

  // "If the transfer does not complete after about an election timeout, the prior leader aborts
  // the transfer and resumes accepting client requests."
  it('a transfer that does not finish within an election timeout is abandoned', () => {
    const node = settledLeader({ electionTimeoutTicks: 5 });
    node.raw.propose(bytes('x'));
    node.flush();
    node.raw.transferLeader('2');
    node.flush();
    expect(node.raw.status().leadTransferee).toBe('2');
    node.tick(5);
    expect(node.raw.status()).toMatchObject({ leadTransferee: '', role: 'leader' });
    expect(() => node.raw.propose(bytes('y'))).not.toThrow();
  });
});

describe('thesis §4.1: single-server membership changes', () => {
  // Paraphrased: a leader starts no new configuration change until the previous one is done.
  it('at most one membership change is pending at a time', () => {
    const node = settledLeader();
    node.raw.proposeConfChange({ kind: 'addLearner', nodeId: '4', context: new Uint8Array(0) });
    node.flush();
    expect(() => node.raw.proposeConfChange({ kind: 'addLearner', nodeId: '5', context: new Uint8Array(0) })).toThrow(
      expect.objectContaining({ reason: 'confChangePending' }),
    );
  });

  // The thesis errata (raft-dev, 2015): "a leader may not append a new configuration entry until
  // it has committed an entry from its current term."
  it('a new leader proposes no membership change before it commits an entry of its term', () => {
    const node = new NodeHarness();
    node.becomeLeader();
    expect(() => node.raw.proposeConfChange({ kind: 'addLearner', nodeId: '4', context: new Uint8Array(0) })).toThrow(
      expect.objectContaining({ reason: 'noCommitInTerm' }),
    );
  });

  it('a change that is not a single-server change is refused', () => {
    const node = settledLeader({ voters: ['1'] });
    expect(() => node.raw.proposeConfChange({ kind: 'removeNode', nodeId: '1', context: new Uint8Array(0) })).toThrow(
      ConfChangeInvalidError,
    );
    expect(() => node.raw.proposeConfChange({ kind: 'addLearner', nodeId: '1', context: new Uint8Array(0) })).toThrow(
      ConfChangeInvalidError,
    );
  });
});

describe('thesis §4.2.1: catching up new servers', () => {
  // "a new server joins the cluster as a non-voting member. The leader replicates log entries
  // to it, but it is not yet counted towards majorities for voting or commitment purposes."
  it('a learner receives the log but its acknowledgement never makes a majority', () => {
    const node = settledLeader({ voters: ['1', '2', '3'], learners: ['4'] });
    node.step({ type: MessageType.AppResp, from: '4', term: 1, index: 1 });
    node.raw.propose(bytes('x'));
    const out = node.flush();
    expect(ofType(out, MessageType.App).map((m) => m.to)).toEqual(['2', '3', '4']);
    node.step({ type: MessageType.AppResp, from: '4', term: 1, index: 2 });
    expect(node.raw.status().commit).toBe(1);
    node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 2 });
    expect(node.raw.status().commit).toBe(2);
  });

  it('a learner never starts an election', () => {
    const node = new NodeHarness({ id: '4', voters: ['1', '2', '3'], learners: ['4'] });
    for (let i = 0; i < 10 * node.electionTimeoutTicks; i++) expect(node.tick()).toEqual([]);
    expect(node.raw.status()).toMatchObject({ role: 'follower', term: 0, isLearner: true });
  });
});

describe('thesis §4.2.3: disruptive servers', () => {
  // "if a server receives a RequestVote request within the minimum election timeout of hearing
  // from a current leader, it does not update its term or grant its vote."
  it('a follower that heard from its leader recently ignores vote requests', () => {
    const node = new NodeHarness({ term: 1, checkQuorum: true });
    node.step({ type: MessageType.Heartbeat, from: '2', term: 1 });
    expect(node.step({ type: MessageType.Vote, from: '3', term: 5, index: 9, logTerm: 9 })).toEqual([]);
    expect(node.raw.status()).toMatchObject({ term: 1, vote: '', leader: '2' });
    // Once an election timeout passes in silence, the same request is heard.
    node.tick(node.electionTimeoutTicks);
    const out = node.step({ type: MessageType.Vote, from: '3', term: 5, index: 9, logTerm: 9 });
    expect(ofType(out, MessageType.VoteResp).map((m) => m.reject)).toEqual([false]);
  });
});

describe('thesis §6.2: CheckQuorum', () => {
  // Paraphrased: a leader steps down if an election timeout elapses without a successful round
  // of heartbeats to a majority of its cluster.
  it('a leader that hears from no majority for an election timeout steps down', () => {
    const node = settledLeader({ checkQuorum: true, electionTimeoutTicks: 5 });
    node.tick(5);
    // The followers answered during the first round (they acknowledged the no-op).
    expect(node.raw.status().role).toBe('leader');
    node.tick(5);
    expect(node.raw.status()).toMatchObject({ role: 'follower', leader: '', term: 1 });
  });

  it('a leader that keeps hearing from a majority stays leader', () => {
    const node = settledLeader({ checkQuorum: true, electionTimeoutTicks: 5 });
    for (let i = 0; i < 30; i++) {
      node.tick();
      node.step({ type: MessageType.HeartbeatResp, from: '2', term: 1 });
    }
    expect(node.raw.status().role).toBe('leader');
  });
});

describe('thesis §6.4: ReadIndex', () => {
  // "1. If the leader has not yet marked an entry from its current term committed, it waits
  // until it has done so."
  it('a new leader answers no read until it has committed an entry of its term', () => {
    const node = new NodeHarness();
    node.becomeLeader();
    node.raw.readIndex(bytes('r1'));
    const out = node.flush();
    expect(ofType(out, MessageType.Heartbeat)).toEqual([]);
    // The no-op commits: the read goes ahead with a heartbeat round.
    const after = node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 1 });
    expect(ofType(after, MessageType.Heartbeat).map((m) => new TextDecoder().decode(m.context))).toEqual(['r1', 'r1']);
  });

  // "2. The leader saves its current commit index in a local variable readIndex. 3. The leader
  // needs to make sure it hasn't been superseded by a newer leader of which it is unaware. It
  // issues a new round of heartbeats and waits for their acknowledgments from a majority of the
  // cluster."
  it('the leader answers a read with its commit index once a majority acknowledged the heartbeat', () => {
    const node = settledLeader({ voters: ['1', '2', '3', '4', '5'] });
    node.raw.readIndex(bytes('r1'));
    const readStates: { index: number; ctx: string }[] = [];
    const collect = (): void => {
      while (node.raw.hasReady()) {
        const ready = node.raw.ready();
        for (const rs of ready.readStates)
          readStates.push({ index: rs.index, ctx: new TextDecoder().decode(rs.requestCtx) });
        node.handleReady(ready);
      }
    };
    collect();
    node.raw.step({
      type: MessageType.HeartbeatResp,
      from: '2',
      to: '1',
      term: 1,
      context: bytes('r1'),
      index: 0,
      logTerm: 0,
      entries: [],
      commit: 0,
      reject: false,
      rejectHint: 0,
      rejectHintTerm: 0,
      snapshot: null,
    });
    collect();
    expect(readStates).toEqual([]);
    node.raw.step({
      type: MessageType.HeartbeatResp,
      from: '3',
      to: '1',
      term: 1,
      context: bytes('r1'),
      index: 0,
      logTerm: 0,
      entries: [],
      commit: 0,
      reject: false,
      rejectHint: 0,
      rejectHintTerm: 0,
      snapshot: null,
    });
    collect();
    expect(readStates).toEqual([{ index: 1, ctx: 'r1' }]);
  });

  // "followers could also help ... the follower issues a request to the leader asking for the
  // current readIndex" (paraphrased from the section on offloading reads).
  it('a follower asks its leader for the read index and turns the answer into a read state', () => {
    const node = new NodeHarness({ id: '2', term: 1 });
    node.step({ type: MessageType.Heartbeat, from: '1', term: 1 });
    node.raw.readIndex(bytes('f1'));
    const out = node.flush();
    expect(ofType(out, MessageType.ReadIndex).map((m) => [m.to, new TextDecoder().decode(m.context)])).toEqual([
      ['1', 'f1'],
    ]);
    node.raw.step({
      type: MessageType.ReadIndexResp,
      from: '1',
      to: '2',
      term: 1,
      index: 7,
      context: bytes('f1'),
      logTerm: 0,
      entries: [],
      commit: 0,
      reject: false,
      rejectHint: 0,
      rejectHintTerm: 0,
      snapshot: null,
    });
    const ready = node.raw.ready();
    expect(ready.readStates.map((rs) => rs.index)).toEqual([7]);
  });
});

describe('thesis §9.6: PreVote', () => {
  // "In the Pre-Vote algorithm, a candidate only increments its term if it first learns from a
  // majority of the cluster that they would be willing to grant the candidate their votes".
  it('a pre-candidate does not touch its term or vote until a majority would grant it', () => {
    const node = new NodeHarness({ term: 3, preVote: true });
    node.raw.campaign();
    const out = node.flush();
    expect(ofType(out, MessageType.PreVote).map((m) => m.term)).toEqual([4, 4]);
    expect(node.raw.status()).toMatchObject({ role: 'precandidate', term: 3, vote: '' });
    node.step({ type: MessageType.PreVoteResp, from: '2', term: 3, reject: true });
    node.step({ type: MessageType.PreVoteResp, from: '3', term: 3, reject: true });
    expect(node.raw.status()).toMatchObject({ role: 'follower', term: 3, vote: '' });
    expect(node.storage.initialState().hardState.term).toBe(3);
  });

  it('a pre-vote grant does not bind the voter: it still votes in its own term', () => {
    const node = new NodeHarness({ term: 3, preVote: true });
    const out = node.step({ type: MessageType.PreVote, from: '2', term: 4 });
    expect(ofType(out, MessageType.PreVoteResp).map((m) => [m.term, m.reject])).toEqual([[4, false]]);
    expect(node.raw.status()).toMatchObject({ term: 3, vote: '' });
  });
});
