/**
 * The membership record of the Raft log: the configuration and the members' addresses as of the
 * last applied conf change (or snapshot), and its wire encoding. It stands apart from the log store
 * because it also travels as a snapshot's data (snapshot-sender.ts, snapshot-receiver.ts) and is
 * given at bootstrap and by offline recovery, none of which needs the store itself.
 */
import type { ConfState } from '../raft/types.js';
import { raftq } from '../gen/proto.js';
import { confStateFromWire, confStateToWire } from './raft-codec.js';

/** The configuration as of the conf change entry at `index` (or the snapshot it came from), with addresses. */
export interface Membership {
  readonly confState: ConfState;
  readonly index: number;
  /** Raft address of each member, as announced when it joined (or given at bootstrap). */
  readonly addresses: Readonly<Record<string, string>>;
}

export function encodeMembership(membership: Membership): Uint8Array {
  return raftq.raft.Membership.encode({
    index: membership.index,
    confState: confStateToWire(membership.confState),
    addresses: { ...membership.addresses },
  }).finish();
}

export function decodeMembership(bytes: Uint8Array): Membership {
  const decoded = raftq.raft.Membership.decode(bytes);
  return {
    index: Number(decoded.index),
    confState: confStateFromWire(decoded.confState),
    addresses: { ...decoded.addresses },
  };
}
