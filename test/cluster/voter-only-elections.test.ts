/**
 * A node answers elections only as a voter of its own configuration (voter-only-elections.ts): a
 * node wiped and started again with --join would otherwise give any candidate a vote from an empty
 * log, counted by a peer that still lists it as a voter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isElectionMessageForNonVoter } from '../../src/cluster/voter-only-elections.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import { MessageType, type RaftMessage } from '../../src/raft/types.js';
import { freePort } from '../support/ports.js';
import { InProcessCluster } from './support/in-process-cluster.js';

function message(type: MessageType, to: string, term = 1): RaftMessage {
  return raftMessage({ type, from: 'n1', to, term });
}

describe('elections answered by voters only', () => {
  it('drops vote and pre-vote requests and TimeoutNow for a node that is not a voter, and nothing else', () => {
    const elections = [MessageType.Vote, MessageType.PreVote, MessageType.TimeoutNow];
    const others = [MessageType.App, MessageType.Heartbeat, MessageType.Snap, MessageType.VoteResp];
    const joiner = { voters: [], learners: [] };
    const learner = { voters: ['n1', 'n2'], learners: ['n3'] };
    const voter = { voters: ['n1', 'n2', 'n3'], learners: [] };
    for (const type of elections) {
      expect(isElectionMessageForNonVoter(message(type, 'n3'), 'n3', () => joiner)).toBe(true);
      expect(isElectionMessageForNonVoter(message(type, 'n3'), 'n3', () => learner)).toBe(true);
      expect(isElectionMessageForNonVoter(message(type, 'n3'), 'n3', () => voter)).toBe(false);
    }
    for (const type of others)
      expect(isElectionMessageForNonVoter(message(type, 'n3'), 'n3', () => joiner)).toBe(false);
  });

  describe('a node started with --join, not yet added', () => {
    let cluster: InProcessCluster | null = null;
    afterEach(async () => {
      await cluster?.close();
      cluster = null;
    });

    it('does not take up the term of a vote request, so grants nothing', async () => {
      cluster = await InProcessCluster.start(3);
      await cluster.leader();
      const joiner = await cluster.startNode('n4', { join: true, raftListen: `127.0.0.1:${await freePort()}` });
      const termBefore = joiner.currentTerm();
      const stepFromPeer = (joiner as unknown as { stepFromPeer(m: RaftMessage): void }).stepFromPeer.bind(joiner);
      stepFromPeer(message(MessageType.Vote, 'n4', termBefore + 5));
      stepFromPeer(message(MessageType.PreVote, 'n4', termBefore + 5));
      expect(joiner.currentTerm()).toBe(termBefore);
    });
  });
});
