import type { Entry, RaftMessage } from '../../src/raft/types.js';
import { MessageType } from '../../src/raft/types.js';

/**
 * Short, stable names for Raft message types in trace lines. A table rather than the enum's
 * reverse mapping: MessageType is a const enum, which tsc inlines and does not emit.
 */
const messageTypeNames: ReadonlyMap<MessageType, string> = new Map([
  [MessageType.Hup, 'Hup'],
  [MessageType.Beat, 'Beat'],
  [MessageType.Prop, 'Prop'],
  [MessageType.App, 'App'],
  [MessageType.AppResp, 'AppResp'],
  [MessageType.Vote, 'Vote'],
  [MessageType.VoteResp, 'VoteResp'],
  [MessageType.PreVote, 'PreVote'],
  [MessageType.PreVoteResp, 'PreVoteResp'],
  [MessageType.Snap, 'Snap'],
  [MessageType.Heartbeat, 'Heartbeat'],
  [MessageType.HeartbeatResp, 'HeartbeatResp'],
  [MessageType.TimeoutNow, 'TimeoutNow'],
  [MessageType.ReadIndex, 'ReadIndex'],
  [MessageType.ReadIndexResp, 'ReadIndexResp'],
  [MessageType.TransferLeader, 'TransferLeader'],
  [MessageType.SnapStatus, 'SnapStatus'],
  [MessageType.Unreachable, 'Unreachable'],
  [MessageType.CheckQuorum, 'CheckQuorum'],
]);

export function messageTypeName(type: MessageType): string {
  return messageTypeNames.get(type) ?? `Type${String(type)}`;
}

function entryRange(entries: readonly Entry[]): string {
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (first === undefined || last === undefined) return '';
  return first.index === last.index ? `i${first.index}` : `i${first.index}..${last.index}`;
}

/** The part of a message that a reader of a trace needs: `App(t3 i5..7 c4)`. */
export function describeRaftMessage(m: RaftMessage): string {
  const name = messageTypeName(m.type);
  switch (m.type) {
    case MessageType.App:
      return m.entries.length > 0
        ? `${name}(t${m.term} ${entryRange(m.entries)} prev${m.index}/t${m.logTerm} c${m.commit})`
        : `${name}(t${m.term} prev${m.index}/t${m.logTerm} c${m.commit})`;
    case MessageType.AppResp:
      return m.reject
        ? `${name}(t${m.term} reject i${m.index} hint${m.rejectHint}/t${m.rejectHintTerm})`
        : `${name}(t${m.term} i${m.index})`;
    case MessageType.Vote:
    case MessageType.PreVote:
      return `${name}(t${m.term} last i${m.index}/t${m.logTerm})`;
    case MessageType.VoteResp:
    case MessageType.PreVoteResp:
      return `${name}(t${m.term} ${m.reject ? 'rejected' : 'granted'})`;
    case MessageType.Snap:
      return m.snapshot === null
        ? `${name}(t${m.term})`
        : `${name}(t${m.term} i${m.snapshot.meta.index}/t${m.snapshot.meta.term})`;
    case MessageType.Heartbeat:
      return `${name}(t${m.term} c${m.commit})`;
    case MessageType.Prop:
      return `${name}(t${m.term} n${m.entries.length})`;
    case MessageType.ReadIndexResp:
      return `${name}(t${m.term} i${m.index})`;
    default:
      return `${name}(t${m.term})`;
  }
}
