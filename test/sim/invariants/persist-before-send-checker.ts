import type { NodeId, RaftMessage } from '../../../src/raft/types.js';
import { MessageType } from '../../../src/raft/types.js';
import { InvariantViolationError } from './invariant-violation-error.js';
import type { LogView } from './log-view.js';

interface Promises {
  /** The highest term this node has put on a message (pre-votes aside: they announce a term not yet taken). */
  termSent: number;
  /** Its vote in `termSent`, if it granted one. */
  voteGranted: NodeId | '';
  /** The highest index it acknowledged to the leader of `termSent`. */
  indexAcknowledged: number;
}

/**
 * Raft Figure 2: persistent state is "updated on stable storage before responding to RPCs".
 * Checked where breaking it shows: when a node restarts, its durable state must still back
 * what it told others before it crashed — the term it announced, the vote it granted in that
 * term, the entries it acknowledged to that term's leader (which never truncates them).
 */
export class PersistBeforeSendChecker {
  private readonly promisesByNode = new Map<NodeId, Promises>();

  observeSent(message: RaftMessage): void {
    if (message.type === MessageType.PreVote || message.type === MessageType.PreVoteResp) return;
    let promises = this.promisesByNode.get(message.from);
    if (promises === undefined || message.term > promises.termSent) {
      promises = { termSent: message.term, voteGranted: '', indexAcknowledged: 0 };
      this.promisesByNode.set(message.from, promises);
    } else if (message.term < promises.termSent) {
      return;
    }
    if (message.type === MessageType.VoteResp && !message.reject) promises.voteGranted = message.to;
    if (message.type === MessageType.AppResp && !message.reject)
      promises.indexAcknowledged = Math.max(promises.indexAcknowledged, message.index);
  }

  /** `nodeId` restarted with this durable term, vote and log. */
  observeRestart(nodeId: NodeId, durable: { term: number; vote: NodeId | '' }, log: LogView): void {
    const promises = this.promisesByNode.get(nodeId);
    if (promises === undefined) return;
    const said = `node ${nodeId} restarted with term ${durable.term}`;
    if (durable.term < promises.termSent) {
      throw new InvariantViolationError(
        'persistBeforeSend',
        `${said}, but it had sent messages of term ${promises.termSent} before crashing`,
      );
    }
    if (durable.term > promises.termSent) return;
    if (promises.voteGranted !== '' && durable.vote !== promises.voteGranted) {
      throw new InvariantViolationError(
        'persistBeforeSend',
        `${said} and vote '${durable.vote}', but it had granted its vote in that term to node ${promises.voteGranted}`,
      );
    }
    if (promises.indexAcknowledged > Math.max(log.lastIndex, log.snapshotIndex)) {
      throw new InvariantViolationError(
        'persistBeforeSend',
        `${said} and a log ending at ${log.lastIndex}, but it had acknowledged entries up to ${promises.indexAcknowledged} to the leader of that term`,
      );
    }
  }
}
