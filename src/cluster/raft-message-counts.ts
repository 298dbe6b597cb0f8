/**
 * Counting Raft messages by kind for the node's metrics: how many appends, heartbeats, votes and
 * their responses cross each node, and how many appends carried no entries (a commit index or a
 * probe alone). What a replication cycle costs a follower depends on these counts, so they are
 * counted on the hot path: the labelled children are looked up once per kind, not per message.
 */
import type { Counter } from 'prom-client';
import { messageTypeName } from '../raft/raft-message.js';
import { MessageType, type RaftMessage } from '../raft/types.js';

/** Kind labels by message type, kebab-cased from the core's type names; filled as types are seen. */
const kindsByType = new Map<MessageType, string>();

/** The label of `message`: its type, and for an append whether it carried entries. */
export function raftMessageKind(message: RaftMessage): string {
  if (message.type === MessageType.App && message.entries.length === 0) return 'app-empty';
  let kind = kindsByType.get(message.type);
  if (kind === undefined) {
    kind = messageTypeName(message.type)
      .replace(/(?<=[a-z])(?=[A-Z])/g, '-')
      .toLowerCase();
    kindsByType.set(message.type, kind);
  }
  return kind;
}

/** Increments a counter labelled by kind, caching each kind's child. */
export class RaftMessageCounts {
  private readonly children = new Map<string, { inc: () => void }>();

  constructor(private readonly counter: Counter<'kind'>) {}

  count(message: RaftMessage): void {
    const kind = raftMessageKind(message);
    let child = this.children.get(kind);
    if (child === undefined) {
      child = this.counter.labels(kind);
      this.children.set(kind, child);
    }
    child.inc();
  }
}
