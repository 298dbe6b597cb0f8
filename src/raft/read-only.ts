import type { NodeId } from './types.js';

/** A ReadIndex request waiting for a majority of heartbeat acknowledgements. */
export interface PendingRead {
  readonly index: number;
  readonly requestCtx: Uint8Array;
  /** The node that asked: the leader itself, or a follower to answer with ReadIndexResp. */
  readonly from: NodeId;
  readonly acks: Set<NodeId>;
}

/**
 * The leader's queue of ReadIndex requests (Raft thesis §6.4). Each request records the commit
 * index when it arrived; it is answered once a majority acknowledged a heartbeat that carried its
 * context or a later one, because such an acknowledgement proves the leader was still leader
 * after the request arrived. Contexts must be unique among pending requests: a duplicate is
 * ignored (the runtime prefixes them with the node id and a counter).
 */
export class ReadOnly {
  private readonly pending = new Map<string, PendingRead>();
  private readonly order: string[] = [];

  addRequest(index: number, requestCtx: Uint8Array, from: NodeId): void {
    const key = ctxKey(requestCtx);
    if (this.pending.has(key)) return;
    this.pending.set(key, { index, requestCtx, from, acks: new Set() });
    this.order.push(key);
  }

  /** Records an acknowledgement; returns how many nodes acknowledged that context (0 if unknown). */
  recvAck(from: NodeId, requestCtx: Uint8Array): Set<NodeId> | null {
    const read = this.pending.get(ctxKey(requestCtx));
    if (read === undefined) return null;
    read.acks.add(from);
    return read.acks;
  }

  /** Removes and returns every request up to and including the one with `requestCtx`. */
  advance(requestCtx: Uint8Array): PendingRead[] {
    const key = ctxKey(requestCtx);
    const position = this.order.indexOf(key);
    if (position < 0) return [];
    const done = this.order.splice(0, position + 1);
    return done.map((k) => {
      const read = this.pending.get(k) as PendingRead;
      this.pending.delete(k);
      return read;
    });
  }

  lastPendingRequestCtx(): Uint8Array | null {
    const key = this.order[this.order.length - 1];
    return key === undefined ? null : (this.pending.get(key) as PendingRead).requestCtx;
  }

  pendingCount(): number {
    return this.order.length;
  }
}

function ctxKey(requestCtx: Uint8Array): string {
  let key = '';
  for (const byte of requestCtx) key += byte.toString(16).padStart(2, '0');
  return key;
}
