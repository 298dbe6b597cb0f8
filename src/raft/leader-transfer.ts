import { hup } from './election.js';
import type { Raft } from './raft.js';
import { sendAppend } from './replication.js';
import type { NodeId, RaftMessage } from './types.js';
import { MessageType } from './types.js';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Leadership transfer (Raft thesis §3.10): the leader stops accepting proposals, brings the
 * target's log up to date, then sends it TimeoutNow so that it campaigns at once, without
 * waiting for an election timeout and without a pre-vote. A transfer that has not finished
 * within an election timeout is abandoned (see Raft.tickHeartbeat).
 *
 * On a follower the request is forwarded to the leader; the target travels in `context`.
 */
export function transferLeader(r: Raft, target: NodeId): void {
  if (r.role === 'leader') {
    startTransfer(r, target);
  } else if (r.leader !== '') {
    r.send({ type: MessageType.TransferLeader, to: r.leader, context: utf8Encoder.encode(target) });
  }
}

export function handleTransferLeader(r: Raft, m: RaftMessage): void {
  startTransfer(r, utf8Decoder.decode(m.context));
}

function startTransfer(r: Raft, target: NodeId): void {
  // Only a voter can win the election the transfer starts; we are already the leader.
  if (target === r.id || !r.tracker.isVoter(target)) return;
  if (r.leadTransferee === target) return;
  abortLeaderTransfer(r);
  r.leadTransferee = target;
  // The transfer gets one election timeout to finish.
  r.electionElapsed = 0;
  if (!maybeSendTimeoutNowAfterCatchUp(r, target)) sendAppend(r, target);
}

/** Sends TimeoutNow once the transfer target holds the leader's whole log. */
export function maybeSendTimeoutNowAfterCatchUp(r: Raft, from: NodeId): boolean {
  if (from !== r.leadTransferee) return false;
  const progress = r.tracker.progress.get(from);
  if (progress === undefined || progress.match !== r.log.lastIndex()) return false;
  r.send({ type: MessageType.TimeoutNow, to: from });
  return true;
}

export function abortLeaderTransfer(r: Raft): void {
  r.leadTransferee = '';
}

/** The target of a transfer campaigns now, skipping the pre-vote (voters let it through their lease). */
export function handleTimeoutNow(r: Raft, _m: RaftMessage): void {
  hup(r, { isTransfer: true });
}
