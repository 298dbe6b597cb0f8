/**
 * A node answers elections only while its own configuration makes it a voter. A node an operator
 * removed, wiped and started again with --join to be added back has an empty log: any candidate's
 * log is "up to date" for it, and a peer that has not yet applied the removal still counts it as a
 * voter. Granting that peer its vote let a candidate whose log lacked committed entries win a
 * majority of the old configuration with it (a delete acknowledged before the removal came back as
 * a delivery: docs/JEPSEN.md, the long run of seed 1508). A learner's vote counts for no one who
 * knows the configuration; a joiner knows none. So vote and pre-vote requests, and a leader's
 * TimeoutNow, are dropped unanswered, as a node repairing its log tail drops them
 * (tail-repair-guard.ts); everything else goes on, so the node still catches up and learns when
 * it becomes a voter.
 */
import type { ConfState } from '../raft/types.js';
import { MessageType, type RaftMessage } from '../raft/types.js';

/** Whether `message` is an election `nodeId` must not answer; `confState` is read only for one. */
export function isElectionMessageForNonVoter(
  message: RaftMessage,
  nodeId: string,
  confState: () => ConfState,
): boolean {
  const isElection =
    message.type === MessageType.Vote ||
    message.type === MessageType.PreVote ||
    message.type === MessageType.TimeoutNow;
  return isElection && !confState().voters.includes(nodeId);
}
