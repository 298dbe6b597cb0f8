import { ReadIndexDroppedError } from './errors.js';
import type { Raft } from './raft.js';
import type { PendingRead } from './read-only.js';
import { outgoingMessage } from './raft-message.js';
import { bcastHeartbeatWithContext } from './replication.js';
import type { RaftMessage } from './types.js';
import { MessageType } from './types.js';

/**
 * A linearizable read without a log write (Raft thesis §6.4). On the leader the request is
 * stepped as a local ReadIndex message; on a follower it is sent to the leader, whose answer
 * becomes a ReadState here. The caller must wait until it has applied the ReadState's index.
 */
export function readIndex(r: Raft, requestCtx: Uint8Array): void {
  const request: RaftMessage = outgoingMessage(
    { type: MessageType.ReadIndex, to: r.id, context: requestCtx },
    r.id,
    r.term,
  );
  if (r.role === 'leader') {
    handleReadIndexRequest(r, request);
    return;
  }
  if (r.leader === '') throw new ReadIndexDroppedError();
  r.send({ type: MessageType.ReadIndex, to: r.leader, context: requestCtx });
}

/**
 * Thesis §6.4: "If the leader has not yet marked an entry from its current term committed, it
 * waits until it has done so." Then it records its commit index and confirms with a round of
 * heartbeats that no newer leader has superseded it.
 */
export function handleReadIndexRequest(r: Raft, m: RaftMessage): void {
  if (!r.hasCommittedEntryInCurrentTerm()) {
    r.pendingReadIndexMessages.push(m);
    return;
  }
  if (r.tracker.voterCount() === 1 && r.tracker.isVoter(r.id)) {
    // Alone in the configuration: no one can have superseded us.
    respond(r, { index: r.log.committed, requestCtx: m.context, from: m.from, acks: new Set() });
    return;
  }
  r.readOnly.addRequest(r.log.committed, m.context, m.from);
  r.readOnly.recvAck(r.id, m.context);
  bcastHeartbeatWithContext(r, m.context);
}

/** A heartbeat acknowledgement carrying a read context: answer reads once a majority confirmed. */
export function handleReadIndexAck(r: Raft, m: RaftMessage): void {
  const acks = r.readOnly.recvAck(m.from, m.context);
  if (acks === null) return;
  let voterAcks = 0;
  for (const id of acks) if (r.tracker.isVoter(id)) voterAcks++;
  if (voterAcks < r.tracker.quorum()) return;
  for (const read of r.readOnly.advance(m.context)) respond(r, read);
}

export function releasePendingReadIndexMessages(r: Raft): void {
  if (r.pendingReadIndexMessages.length === 0 || !r.hasCommittedEntryInCurrentTerm()) return;
  const waiting = r.pendingReadIndexMessages;
  r.pendingReadIndexMessages = [];
  for (const m of waiting) handleReadIndexRequest(r, m);
}

export function handleReadIndexResponse(r: Raft, m: RaftMessage): void {
  r.readStates.push({ index: m.index, requestCtx: m.context });
}

function respond(r: Raft, read: PendingRead): void {
  if (read.from === r.id) {
    r.readStates.push({ index: read.index, requestCtx: read.requestCtx });
  } else {
    r.send({ type: MessageType.ReadIndexResp, to: read.from, index: read.index, context: read.requestCtx });
  }
}
