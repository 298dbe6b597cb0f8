import { describe, expect, it } from 'vitest';
import { MessageType } from '../../src/raft/types.js';
import { NodeHarness, ofType } from './support/node-harness.js';
import { RaftNetwork } from './support/raft-network.js';

/**
 * The test-only fault switches (RaftConfig.faults) really break the rule they name, and only
 * when switched on. The simulator relies on this to prove that its invariant checks catch bugs.
 */
describe('deliberate faults', () => {
  it('grantVoteTwicePerTerm: a follower votes for a second candidate in the same term', () => {
    for (const isFaulty of [false, true]) {
      const node = new NodeHarness({ term: 1, faults: { grantVoteTwicePerTerm: isFaulty } });
      node.step({ type: MessageType.Vote, from: '2', term: 1 });
      const second = node.step({ type: MessageType.Vote, from: '3', term: 1 });
      expect(ofType(second, MessageType.VoteResp).map((m) => m.reject)).toEqual([!isFaulty]);
    }
  });

  it('grantVoteTwicePerTerm lets two leaders win the same term', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'], preVote: false, faults: { grantVoteTwicePerTerm: true } });
    net.campaign('1');
    net.campaign('2');
    // Each candidate's vote request reaches 3 before anything else is delivered.
    net.processReadies();
    net.deliver((m) => m.to === '3');
    net.processReadies();
    net.deliver((m) => m.from === '3');
    net.processReadies();
    expect(net.leaders().sort()).toEqual(['1', '2']);
    expect(net.node('1').raw.status().term).toBe(net.node('2').raw.status().term);
  });

  it('skipLogUpToDateCheck: a voter grants a candidate whose log is behind its own', () => {
    for (const isFaulty of [false, true]) {
      const node = new NodeHarness({ term: 2, logTerms: [1, 2, 2], faults: { skipLogUpToDateCheck: isFaulty } });
      const out = node.step({ type: MessageType.Vote, from: '2', term: 3, index: 1, logTerm: 1 });
      expect(ofType(out, MessageType.VoteResp).map((m) => m.reject)).toEqual([!isFaulty]);
    }
  });

  it('commitPreviousTermByCounting: a leader commits an entry of an earlier term once a majority holds it', () => {
    for (const isFaulty of [false, true]) {
      const node = new NodeHarness({
        logTerms: [1, 2],
        term: 2,
        commit: 1,
        faults: { commitPreviousTermByCounting: isFaulty },
      });
      node.raw.campaign();
      node.flush();
      node.step({ type: MessageType.VoteResp, from: '2', term: 3 });
      node.step({ type: MessageType.AppResp, from: '2', term: 3, index: 2 });
      expect(node.raw.status().commit).toBe(isFaulty ? 2 : 1);
    }
  });
});
