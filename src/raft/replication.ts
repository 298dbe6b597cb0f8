import { assert } from '../base/assert.js';
import { entrySizeBytes } from './entry-size.js';
import { CompactedError } from './errors.js';
import { maybeSendTimeoutNowAfterCatchUp } from './leader-transfer.js';
import type { Progress } from './progress.js';
import type { Raft } from './raft.js';
import { handleReadIndexAck, releasePendingReadIndexMessages } from './read-index.js';
import type { Entry, NodeId, RaftMessage } from './types.js';
import { MessageType } from './types.js';

const noContext = new Uint8Array(0);

// ---- leader: sending ---------------------------------------------------------------------

/**
 * Sends the next append to `to` if its progress allows one: in probe state one at a time, in
 * replicate state while the inflight window has room, in snapshot state nothing. Falls back to
 * a snapshot when the entries the follower needs were compacted. Returns whether it sent.
 */
export function maybeSendAppend(r: Raft, to: NodeId, options: { isEmptyAllowed: boolean }): boolean {
  const progress = r.tracker.progress.get(to);
  if (progress === undefined || to === r.id || progress.isPaused()) return false;
  const prevIndex = progress.next - 1;
  const prevTerm = r.log.maybeTerm(prevIndex);
  const entries = prevTerm === null ? null : entriesFrom(r, progress.next);
  if (prevTerm === null || entries === null) return maybeSendSnapshot(r, to, progress);
  if (entries.length === 0 && !options.isEmptyAllowed) return false;
  r.send({ type: MessageType.App, to, index: prevIndex, logTerm: prevTerm, entries, commit: r.log.committed });
  const last = entries[entries.length - 1];
  let sizeBytes = 0;
  for (const entry of entries) sizeBytes += entrySizeBytes(entry);
  progress.sentEntries(entries.length, last === undefined ? prevIndex : last.index, sizeBytes);
  return true;
}

function entriesFrom(r: Raft, next: number): Entry[] | null {
  try {
    return r.log.slice(next, r.log.lastIndex() + 1, r.config.appendBytesMax);
  } catch (err) {
    if (err instanceof CompactedError) return null;
    throw err;
  }
}

/** Compaction (Raft §7): entries the follower lacks are gone, so send the snapshot instead. */
function maybeSendSnapshot(r: Raft, to: NodeId, progress: Progress): boolean {
  // A follower we have not heard from lately may be down: do not ship it a whole state.
  if (!progress.isRecentlyActive) return false;
  const snapshot = r.log.snapshot();
  assert(snapshot.meta.index > 0, () => `need a snapshot for ${to} but storage has none`);
  progress.becomeSnapshot(snapshot.meta.index);
  r.send({ type: MessageType.Snap, to, snapshot });
  return true;
}

export function sendAppend(r: Raft, to: NodeId): void {
  maybeSendAppend(r, to, { isEmptyAllowed: true });
}

/** Raft §5.3: "issues AppendEntries RPCs in parallel to each of the other servers". */
export function bcastAppend(r: Raft): void {
  for (const id of r.tracker.memberIds()) if (id !== r.id) sendAppend(r, id);
}

/**
 * Raft §5.2: "Leaders send periodic heartbeats (AppendEntries RPCs that carry no log entries)
 * to all followers in order to maintain their authority." A heartbeat carries the context of
 * the newest pending ReadIndex request, so every round also confirms pending reads.
 */
export function bcastHeartbeat(r: Raft): void {
  bcastHeartbeatWithContext(r, r.readOnly.lastPendingRequestCtx() ?? noContext);
}

export function bcastHeartbeatWithContext(r: Raft, context: Uint8Array): void {
  for (const id of r.tracker.memberIds()) {
    if (id === r.id) continue;
    const progress = r.tracker.progress.get(id) as Progress;
    // Never tell a follower to commit past what it is known to hold: its tail may still differ.
    r.send({ type: MessageType.Heartbeat, to: id, commit: Math.min(progress.match, r.log.committed), context });
  }
}

// ---- leader: receiving -------------------------------------------------------------------

export function handleAppendResponse(r: Raft, m: RaftMessage): void {
  const progress = r.tracker.progress.get(m.from);
  if (progress === undefined) return;
  progress.isRecentlyActive = true;
  if (m.reject) {
    // Fast back-off: skip to where the follower's hint says the logs may match, a whole term
    // at a time when the follower named the term at its hint.
    const matchHint =
      m.rejectHintTerm > 0 ? r.log.findConflictByTerm(m.rejectHint, m.rejectHintTerm).index : m.rejectHint;
    if (progress.maybeDecreaseTo(m.index, matchHint)) {
      if (progress.state === 'replicate') progress.becomeProbe();
      sendAppend(r, m.from);
    }
    return;
  }
  const wasPaused = progress.isPaused();
  const isProbeAnswered = progress.match === m.index && progress.state === 'probe';
  if (!progress.maybeUpdate(m.index) && !isProbeAnswered) return;
  if (progress.state === 'probe') {
    progress.becomeReplicate();
  } else if (progress.state === 'snapshot' && progress.match + 1 >= r.log.firstIndex()) {
    // The follower caught up past the compaction point: the log can take it from here.
    progress.becomeProbe();
    progress.becomeReplicate();
  } else if (progress.state === 'replicate') {
    progress.inflights.freeLE(m.index);
  }
  if (maybeCommitAsLeader(r)) onLeaderCommitAdvanced(r);
  else if (wasPaused) sendAppend(r, m.from);
  // Pipelining: fill the inflight window.
  while (maybeSendAppend(r, m.from, { isEmptyAllowed: false })) {
    // keep sending
  }
  maybeSendTimeoutNowAfterCatchUp(r, m.from);
}

export function handleHeartbeatResponse(r: Raft, m: RaftMessage): void {
  const progress = r.tracker.progress.get(m.from);
  if (progress === undefined) return;
  progress.isRecentlyActive = true;
  progress.isProbeSent = false;
  // The follower is alive; if every append in flight was lost, free one slot so that the next
  // append goes out and its rejection puts the follower back into probe state.
  if (progress.state === 'replicate' && progress.inflights.isFull()) progress.inflights.freeFirstOne();
  if (progress.match < r.log.lastIndex()) sendAppend(r, m.from);
  if (m.context.length > 0) handleReadIndexAck(r, m);
}

/**
 * Raft §5.4.2: "Raft never commits log entries from previous terms by counting replicas. Only
 * log entries from the leader's current term are committed by counting replicas".
 */
export function maybeCommitAsLeader(r: Raft): boolean {
  const index = r.tracker.committedIndex();
  if (r.config.faults.commitPreviousTermByCounting === true && index > r.log.committed) {
    r.log.commitTo(index);
    return true;
  }
  return r.log.maybeCommit(index, r.term);
}

/** The commit index moved: release reads that waited for it and tell the followers. */
export function onLeaderCommitAdvanced(r: Raft): void {
  releasePendingReadIndexMessages(r);
  bcastAppend(r);
}

/** The leader's own entries became durable (RawNode.advance): count its own acknowledgement. */
export function leaderPersisted(r: Raft): void {
  const self = r.tracker.progress.get(r.id);
  if (r.role !== 'leader' || self === undefined) return;
  if (self.maybeUpdate(r.log.persistedLastIndex()) && maybeCommitAsLeader(r)) onLeaderCommitAdvanced(r);
}

export function reportUnreachable(r: Raft, peer: NodeId): void {
  const progress = r.tracker.progress.get(peer);
  if (r.role !== 'leader' || progress === undefined) return;
  // Appends in flight were probably lost: go back to probing rather than pipelining into a void.
  if (progress.state === 'replicate') progress.becomeProbe();
}

export function reportSnapshotStatus(r: Raft, peer: NodeId, status: 'finished' | 'failure'): void {
  const progress = r.tracker.progress.get(peer);
  if (r.role !== 'leader' || progress === undefined || progress.state !== 'snapshot') return;
  if (status === 'failure') progress.pendingSnapshot = 0;
  progress.becomeProbe();
  // Wait for the next heartbeat response before probing: the follower may still be installing.
  progress.isProbeSent = true;
}

// ---- follower ----------------------------------------------------------------------------

/**
 * Raft §5.3: "If the follower does not find an entry in its log with the same index and term,
 * then it refuses the new entries." A refusal carries a hint for the leader to skip back fast.
 */
export function handleAppendEntries(r: Raft, m: RaftMessage): void {
  if (m.index < r.log.committed) {
    // Everything up to our commit index is already settled; say where we are.
    r.send({ type: MessageType.AppResp, to: m.from, index: r.log.committed });
    return;
  }
  const lastNewIndex = r.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNewIndex !== null) {
    r.send({ type: MessageType.AppResp, to: m.from, index: lastNewIndex });
    return;
  }
  const hint = r.log.findConflictByTerm(Math.min(m.index, r.log.lastIndex()), m.logTerm);
  r.send({
    type: MessageType.AppResp,
    to: m.from,
    index: m.index,
    reject: true,
    rejectHint: hint.index,
    rejectHintTerm: hint.term,
  });
}

export function handleHeartbeat(r: Raft, m: RaftMessage): void {
  r.log.commitTo(m.commit);
  r.send({ type: MessageType.HeartbeatResp, to: m.from, context: m.context });
}

/** Raft §7: a follower installs a snapshot only if it tells it something its log does not. */
export function handleSnapshot(r: Raft, m: RaftMessage): void {
  const snapshot = m.snapshot;
  assert(snapshot !== null, 'Snap message without a snapshot');
  const { index, term } = snapshot.meta;
  if (index <= r.log.committed) {
    r.send({ type: MessageType.AppResp, to: m.from, index: r.log.committed });
    return;
  }
  if (r.log.matchTerm(index, term)) {
    // "If the follower receives a snapshot that describes a prefix of its log, log entries
    // covered by the snapshot are deleted but entries following the snapshot are retained."
    r.log.commitTo(index);
    // Only the prefix is known to match the leader; the tail after it may be stale.
    r.send({ type: MessageType.AppResp, to: m.from, index: r.log.committed });
    return;
  }
  r.log.restore(snapshot);
  r.tracker = r.newTracker(snapshot.meta.confState);
  r.send({ type: MessageType.AppResp, to: m.from, index: r.log.lastIndex() });
}
