import type { Entry, RaftMessage } from './types.js';
import { MessageType } from './types.js';

const noBytes = new Uint8Array(0);
const noEntries: readonly Entry[] = [];

/** A RaftMessage with every field the caller does not care about set to its zero value. */
export function raftMessage(
  fields: Partial<RaftMessage> & Pick<RaftMessage, 'type' | 'from' | 'to' | 'term'>,
): RaftMessage {
  return outgoingMessage(fields, fields.from, fields.term);
}

/** A message from `from` at `term` (unless `fields` names another term). */
export function outgoingMessage(
  fields: Partial<RaftMessage> & Pick<RaftMessage, 'type' | 'to'>,
  from: string,
  term: number,
): RaftMessage {
  // Field by field rather than by spreading: this runs for every message and spreads are slow.
  return {
    type: fields.type,
    from,
    to: fields.to,
    term: fields.term ?? term,
    index: fields.index ?? 0,
    logTerm: fields.logTerm ?? 0,
    entries: fields.entries ?? noEntries,
    commit: fields.commit ?? 0,
    reject: fields.reject ?? false,
    rejectHint: fields.rejectHint ?? 0,
    rejectHintTerm: fields.rejectHintTerm ?? 0,
    snapshot: fields.snapshot ?? null,
    context: fields.context ?? noBytes,
  };
}

/** The context of a Vote sent because of TimeoutNow: voters grant it even while they follow a live leader. */
export const transferCampaignContext: Uint8Array = new TextEncoder().encode('transfer');

export function isTransferCampaign(message: RaftMessage): boolean {
  const ctx = message.context;
  if (ctx.length !== transferCampaignContext.length) return false;
  for (let i = 0; i < ctx.length; i++) if (ctx[i] !== transferCampaignContext[i]) return false;
  return true;
}

const typeNames: Record<MessageType, string> = {
  [MessageType.Hup]: 'Hup',
  [MessageType.Beat]: 'Beat',
  [MessageType.Prop]: 'Prop',
  [MessageType.App]: 'App',
  [MessageType.AppResp]: 'AppResp',
  [MessageType.Vote]: 'Vote',
  [MessageType.VoteResp]: 'VoteResp',
  [MessageType.PreVote]: 'PreVote',
  [MessageType.PreVoteResp]: 'PreVoteResp',
  [MessageType.Snap]: 'Snap',
  [MessageType.Heartbeat]: 'Heartbeat',
  [MessageType.HeartbeatResp]: 'HeartbeatResp',
  [MessageType.TimeoutNow]: 'TimeoutNow',
  [MessageType.ReadIndex]: 'ReadIndex',
  [MessageType.ReadIndexResp]: 'ReadIndexResp',
  [MessageType.TransferLeader]: 'TransferLeader',
  [MessageType.SnapStatus]: 'SnapStatus',
  [MessageType.Unreachable]: 'Unreachable',
  [MessageType.CheckQuorum]: 'CheckQuorum',
};

export function messageTypeName(type: MessageType): string {
  return typeNames[type] ?? `Type${String(type)}`;
}

/**
 * One line per message for transcripts and logs, e.g.
 * `1->2 App term=2 index=5 logTerm=1 entries=[2/6 2/7] commit=5`. Only fields that matter for
 * the message type are printed.
 */
export function describeRaftMessage(m: RaftMessage): string {
  const parts = [`${m.from}->${m.to} ${messageTypeName(m.type)} term=${m.term}`];
  switch (m.type) {
    case MessageType.App:
      parts.push(
        `index=${m.index} logTerm=${m.logTerm}`,
        `entries=[${m.entries.map((e) => `${e.term}/${e.index}`).join(' ')}]`,
        `commit=${m.commit}`,
      );
      break;
    case MessageType.AppResp:
      parts.push(`index=${m.index}`);
      if (m.reject) parts.push(`reject hint=${m.rejectHint}/${m.rejectHintTerm}`);
      break;
    case MessageType.Vote:
    case MessageType.PreVote:
      parts.push(`lastIndex=${m.index} lastTerm=${m.logTerm}`);
      if (isTransferCampaign(m)) parts.push('transfer');
      break;
    case MessageType.VoteResp:
    case MessageType.PreVoteResp:
      parts.push(m.reject ? 'reject' : 'grant');
      break;
    case MessageType.Heartbeat:
      parts.push(`commit=${m.commit}`);
      break;
    case MessageType.Snap:
      if (m.snapshot !== null) parts.push(`snapshot=${m.snapshot.meta.term}/${m.snapshot.meta.index}`);
      break;
    case MessageType.ReadIndexResp:
      parts.push(`index=${m.index}`);
      break;
    default:
      break;
  }
  if (m.context.length > 0 && !isTransferCampaign(m)) parts.push(`ctx=${new TextDecoder().decode(m.context)}`);
  return parts.join(' ');
}

export function isLocalMessageType(type: MessageType): boolean {
  return (
    type === MessageType.Hup ||
    type === MessageType.Beat ||
    type === MessageType.Prop ||
    type === MessageType.SnapStatus ||
    type === MessageType.Unreachable ||
    type === MessageType.CheckQuorum
  );
}
