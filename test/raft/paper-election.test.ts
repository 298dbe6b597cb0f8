import { describe, expect, it } from 'vitest';
import { MessageType } from '../../src/raft/types.js';
import { NodeHarness, ofType } from './support/node-harness.js';

/**
 * Rules of leader election from the Raft paper ("In Search of an Understandable Consensus
 * Algorithm", extended version), each test quoting the sentence it checks.
 */
describe('Raft §5.1: terms', () => {
  // "Current terms are exchanged whenever servers communicate; if one server's current term is
  // smaller than the other's, then it updates its current term to the larger value. If a
  // candidate or leader discovers that its term is out of date, it immediately reverts to
  // follower state."
  it('a follower that sees a larger term adopts it', () => {
    const node = new NodeHarness({ term: 1 });
    node.step({ type: MessageType.Heartbeat, from: '2', term: 3 });
    expect(node.raw.status()).toMatchObject({ term: 3, role: 'follower', leader: '2' });
  });

  it('a candidate that sees a larger term reverts to follower', () => {
    const node = new NodeHarness();
    node.raw.campaign();
    node.flush();
    expect(node.raw.status().role).toBe('candidate');
    node.step({ type: MessageType.App, from: '3', term: 5 });
    expect(node.raw.status()).toMatchObject({ term: 5, role: 'follower', leader: '3' });
  });

  it('a leader that sees a larger term reverts to follower', () => {
    const node = new NodeHarness();
    node.becomeLeader();
    expect(node.raw.status().role).toBe('leader');
    node.step({ type: MessageType.AppResp, from: '2', term: 4 });
    expect(node.raw.status()).toMatchObject({ term: 4, role: 'follower', leader: '' });
  });

  // "If a server receives a request with a stale term number, it rejects the request."
  it('a request with a stale term is rejected and changes nothing', () => {
    const node = new NodeHarness({ term: 3, logTerms: [1] });
    const out = node.step({
      type: MessageType.App,
      from: '2',
      term: 2,
      index: 1,
      logTerm: 1,
      entries: [{ term: 2, index: 2, type: 0, data: new Uint8Array(0) }],
    });
    expect(node.logTerms()).toEqual([1]);
    expect(node.raw.status()).toMatchObject({ term: 3, leader: '' });
    expect(ofType(out, MessageType.AppResp).every((m) => m.term === 3 && m.index === 0)).toBe(true);
    const votes = node.step({ type: MessageType.Vote, from: '2', term: 2, index: 5, logTerm: 2 });
    expect(votes).toEqual([]);
    expect(node.raw.status().vote).toBe('');
  });
});

describe('Raft §5.2: leader election', () => {
  // "When servers start up, they begin as followers."
  it('a node starts as a follower', () => {
    const node = new NodeHarness({ term: 2, vote: '3' });
    expect(node.raw.status()).toMatchObject({ role: 'follower', term: 2, vote: '3', leader: '' });
  });

  // "Leaders send periodic heartbeats (AppendEntries RPCs that carry no log entries) to all
  // followers in order to maintain their authority."
  it('a leader sends heartbeats to every follower each heartbeat interval', () => {
    const node = new NodeHarness({ heartbeatTicks: 2 });
    node.becomeLeader();
    expect(node.tick()).toEqual([]);
    const beats = node.tick();
    expect(beats.map((m) => [m.type, m.to])).toEqual([
      [MessageType.Heartbeat, '2'],
      [MessageType.Heartbeat, '3'],
    ]);
    expect(beats.every((m) => m.entries.length === 0 && m.term === 1)).toBe(true);
  });

  // "If a follower receives no communication over a period of time called the election
  // timeout, then it assumes there is no viable leader and begins an election to choose a new
  // leader." "To begin an election, a follower increments its current term and transitions to
  // candidate state. It then votes for itself and issues RequestVote RPCs in parallel to each of
  // the other servers in the cluster."
  it('a follower that hears nothing for an election timeout becomes a candidate and asks everyone for votes', () => {
    const node = new NodeHarness({ term: 1, logTerms: [1, 1] });
    expect(node.tick(node.electionTimeoutTicks - 1)).toEqual([]);
    const votes = node.tickUntilCampaign();
    expect(node.raw.status()).toMatchObject({ role: 'candidate', term: 2, vote: '1' });
    expect(votes.map((m) => [m.type, m.to, m.term, m.index, m.logTerm])).toEqual([
      [MessageType.Vote, '2', 2, 2, 1],
      [MessageType.Vote, '3', 2, 2, 1],
    ]);
  });

  // "A server remains in follower state as long as it receives valid RPCs from a leader or candidate."
  it('a follower that keeps hearing from its leader never campaigns', () => {
    const node = new NodeHarness({ term: 1 });
    for (let i = 0; i < 5 * node.electionTimeoutTicks; i++) {
      node.step({ type: MessageType.Heartbeat, from: '2', term: 1 });
      expect(ofType(node.tick(), MessageType.Vote)).toEqual([]);
    }
    expect(node.raw.status()).toMatchObject({ role: 'follower', leader: '2', term: 1 });
  });

  // "A candidate wins an election if it receives votes from a majority of the servers in the
  // full cluster for the same term." "Once a candidate wins an election, it becomes leader. It
  // then sends heartbeat messages to all of the other servers to establish its authority".
  it('a candidate becomes leader exactly when a majority of the full cluster voted for it', () => {
    const node = new NodeHarness({ voters: ['1', '2', '3', '4', '5'] });
    node.raw.campaign();
    node.flush();
    node.step({ type: MessageType.VoteResp, from: '2', term: 1 });
    expect(node.raw.status().role).toBe('candidate');
    node.step({ type: MessageType.VoteResp, from: '2', term: 1 });
    expect(node.raw.status().role).toBe('candidate');
    const out = node.step({ type: MessageType.VoteResp, from: '3', term: 1 });
    expect(node.raw.status()).toMatchObject({ role: 'leader', leader: '1', term: 1 });
    expect(ofType(out, MessageType.App).map((m) => m.to)).toEqual(['2', '3', '4', '5']);
  });

  it('a candidate rejected by a majority returns to follower in the same term', () => {
    const node = new NodeHarness({ voters: ['1', '2', '3', '4', '5'] });
    node.raw.campaign();
    node.flush();
    node.step({ type: MessageType.VoteResp, from: '2', term: 1, reject: true });
    node.step({ type: MessageType.VoteResp, from: '3', term: 1, reject: true });
    expect(node.raw.status().role).toBe('candidate');
    node.step({ type: MessageType.VoteResp, from: '4', term: 1, reject: true });
    expect(node.raw.status()).toMatchObject({ role: 'follower', term: 1 });
  });

  // "Each server will vote for at most one candidate in a given term, on a
  // first-come-first-served basis".
  it('a server votes for at most one candidate per term, first come first served', () => {
    const node = new NodeHarness({ term: 1 });
    const first = node.step({ type: MessageType.Vote, from: '2', term: 1 });
    expect(first.map((m) => [m.to, m.reject])).toEqual([['2', false]]);
    const second = node.step({ type: MessageType.Vote, from: '3', term: 1 });
    expect(second.map((m) => [m.to, m.reject])).toEqual([['3', true]]);
    // The same candidate asking again (a retransmission) gets the same answer.
    const again = node.step({ type: MessageType.Vote, from: '2', term: 1 });
    expect(again.map((m) => [m.to, m.reject])).toEqual([['2', false]]);
    expect(node.storage.initialState().hardState).toMatchObject({ term: 1, vote: '2' });
  });

  // "While waiting for votes, a candidate may receive an AppendEntries RPC from another server
  // claiming to be leader. If the leader's term (included in its RPC) is at least as large as
  // the candidate's current term, then the candidate recognizes the leader as legitimate and
  // returns to follower state. If the term in the RPC is smaller than the candidate's current
  // term, then the candidate rejects the RPC and continues in candidate state."
  it('a candidate yields to a leader of its own term but not to one of an older term', () => {
    const older = new NodeHarness({ term: 1 });
    older.raw.campaign();
    older.flush();
    older.step({ type: MessageType.App, from: '2', term: 1 });
    expect(older.raw.status()).toMatchObject({ role: 'candidate', term: 2 });
    older.step({ type: MessageType.App, from: '3', term: 2 });
    expect(older.raw.status()).toMatchObject({ role: 'follower', term: 2, leader: '3' });
  });

  // "Raft uses randomized election timeouts to ensure that split votes are rare and that they
  // are resolved quickly. To prevent split votes in the first place, election timeouts are
  // chosen randomly from a fixed interval".
  it('election timeouts are drawn at random from [timeout, 2 * timeout)', () => {
    const seen = new Set<number>();
    for (let seed = 1; seed <= 100; seed++) {
      const node = new NodeHarness({ seed, electionTimeoutTicks: 10 });
      let ticks = 0;
      while (node.raw.status().role === 'follower') {
        node.raw.tick();
        ticks++;
      }
      expect(ticks).toBeGreaterThanOrEqual(10);
      expect(ticks).toBeLessThan(20);
      seen.add(ticks);
    }
    expect(seen.size).toBeGreaterThanOrEqual(8);
  });

  // "if many followers become candidates at the same time, votes could be split so that no
  // candidate obtains a majority. When this happens, each candidate will time out and start a
  // new election by incrementing its term and initiating another round of RequestVote RPCs."
  it('a candidate without a majority times out and starts a new election in the next term', () => {
    const node = new NodeHarness();
    node.raw.campaign();
    node.flush();
    node.step({ type: MessageType.VoteResp, from: '2', term: 1, reject: true });
    expect(node.raw.status()).toMatchObject({ role: 'candidate', term: 1 });
    const votes = node.tickUntilCampaign();
    expect(node.raw.status()).toMatchObject({ role: 'candidate', term: 2, vote: '1' });
    expect(ofType(votes, MessageType.Vote).map((m) => m.term)).toEqual([2, 2]);
  });
});

describe('Raft §5.4.1: election restriction', () => {
  // "the voter denies its vote if its own log is more up-to-date than that of the candidate."
  // "If the logs have last entries with different terms, then the log with the later term is
  // more up-to-date. If the logs end with the same term, then whichever log is longer is more
  // up-to-date."
  const cases: { lastIndex: number; lastTerm: number; isGranted: boolean; why: string }[] = [
    { lastIndex: 3, lastTerm: 2, isGranted: true, why: 'same last term, same length' },
    { lastIndex: 4, lastTerm: 2, isGranted: true, why: 'same last term, longer' },
    { lastIndex: 2, lastTerm: 2, isGranted: false, why: 'same last term, shorter' },
    { lastIndex: 9, lastTerm: 1, isGranted: false, why: 'older last term, however long' },
    { lastIndex: 1, lastTerm: 3, isGranted: true, why: 'later last term, however short' },
  ];
  for (const c of cases) {
    it(`a voter whose log ends at 2/3 ${c.isGranted ? 'grants' : 'denies'} a candidate ending at ${c.lastTerm}/${c.lastIndex} (${c.why})`, () => {
      const node = new NodeHarness({ term: 3, logTerms: [1, 1, 2] });
      const out = node.step({ type: MessageType.Vote, from: '2', term: 4, index: c.lastIndex, logTerm: c.lastTerm });
      expect(out.map((m) => [m.type, m.reject])).toEqual([[MessageType.VoteResp, !c.isGranted]]);
      expect(node.raw.status().vote).toBe(c.isGranted ? '2' : '');
    });
  }
});
