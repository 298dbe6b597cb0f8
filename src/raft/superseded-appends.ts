/**
 * Drops from one Ready's messages each append that carries no entries (it only tells a follower
 * the commit index, or answers nothing new) when a later append of the same term to the same
 * follower, in the same Ready, carries a commit index at least as high: the later one tells the
 * follower everything the empty one would have, and saves the follower a step and an answer.
 * Safe because Raft never depends on a message arriving: dropping one is a loss it already
 * tolerates (an empty append takes no inflight slot, and a probe pauses its follower, so no later
 * append follows one in the same Ready). Under load a leader otherwise sends about as many empty
 * commit appends as appends with entries.
 */
import { MessageType, type RaftMessage } from './types.js';

export function withoutSupersededAppends(messages: RaftMessage[]): RaftMessage[] {
  if (messages.length < 2) return messages;
  /** Per follower, the highest commit index of the appends with entries seen so far from the end. */
  const laterCommit = new Map<string, { term: number; commit: number }>();
  const kept: RaftMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as RaftMessage;
    if (message.type === MessageType.App) {
      const later = laterCommit.get(message.to);
      const isSuperseded = message.entries.length === 0 && message.snapshot === null && later !== undefined && later.term === message.term && later.commit >= message.commit;
      if (isSuperseded) continue;
      if (later === undefined || later.term !== message.term || later.commit < message.commit) laterCommit.set(message.to, { term: message.term, commit: message.commit });
    }
    kept.push(message);
  }
  return kept.length === messages.length ? messages : kept.reverse();
}
