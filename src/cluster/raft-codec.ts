/**
 * Maps the Raft core's types (src/raft/types.ts) to the generated wire types of proto/raft.proto
 * and back. Only this file knows both shapes; the rest of the runtime speaks the core's types.
 */
import { raftq } from '../gen/proto.js';
import type { ConfState, Entry, EntryType, HardState, MessageType, RaftMessage, Snapshot, SnapshotMeta } from '../raft/types.js';

const wire = raftq.raft;
const emptyBytes = new Uint8Array(0);

export function entryToWire(entry: Entry): raftq.raft.Entry.$Properties {
  return { term: entry.term, index: entry.index, type: entry.type as number, data: entry.data };
}

export function entryFromWire(entry: raftq.raft.Entry.$Properties): Entry {
  return {
    term: Number(entry.term ?? 0),
    index: Number(entry.index ?? 0),
    type: (entry.type ?? 0) as number as EntryType,
    data: entry.data ?? emptyBytes,
  };
}

export function encodeEntry(entry: Entry): Uint8Array {
  return wire.Entry.encode(entryToWire(entry)).finish();
}

export function decodeEntry(bytes: Uint8Array): Entry {
  return entryFromWire(wire.Entry.decode(bytes));
}

export function encodeHardState(hardState: HardState): Uint8Array {
  return wire.HardState.encode({ term: hardState.term, vote: hardState.vote, commit: hardState.commit }).finish();
}

export function decodeHardState(bytes: Uint8Array): HardState {
  const decoded = wire.HardState.decode(bytes);
  return { term: Number(decoded.term), vote: decoded.vote, commit: Number(decoded.commit) };
}

export function confStateToWire(confState: ConfState): raftq.raft.ConfState.$Properties {
  return { voters: [...confState.voters], learners: [...confState.learners] };
}

export function confStateFromWire(confState: raftq.raft.ConfState.$Properties | null | undefined): ConfState {
  return { voters: [...(confState?.voters ?? [])], learners: [...(confState?.learners ?? [])] };
}

export function encodeConfState(confState: ConfState): Uint8Array {
  return wire.ConfState.encode(confStateToWire(confState)).finish();
}

export function decodeConfState(bytes: Uint8Array): ConfState {
  return confStateFromWire(wire.ConfState.decode(bytes));
}

export function snapshotMetaToWire(meta: SnapshotMeta): raftq.raft.SnapshotMeta.$Properties {
  return { index: meta.index, term: meta.term, confState: confStateToWire(meta.confState) };
}

export function snapshotMetaFromWire(meta: raftq.raft.SnapshotMeta.$Properties | null | undefined): SnapshotMeta {
  return { index: Number(meta?.index ?? 0), term: Number(meta?.term ?? 0), confState: confStateFromWire(meta?.confState) };
}

export function encodeSnapshotMeta(meta: SnapshotMeta): Uint8Array {
  return wire.SnapshotMeta.encode(snapshotMetaToWire(meta)).finish();
}

export function decodeSnapshotMeta(bytes: Uint8Array): SnapshotMeta {
  return snapshotMetaFromWire(wire.SnapshotMeta.decode(bytes));
}

function snapshotToWire(snapshot: Snapshot): raftq.raft.Snapshot.$Properties {
  return { meta: snapshotMetaToWire(snapshot.meta), data: snapshot.data };
}

function snapshotFromWire(snapshot: raftq.raft.Snapshot.$Properties): Snapshot {
  return { meta: snapshotMetaFromWire(snapshot.meta), data: snapshot.data ?? emptyBytes };
}

export function raftMessageToWire(message: RaftMessage): raftq.raft.RaftMessage.$Properties {
  return {
    type: message.type as number,
    from: message.from,
    to: message.to,
    term: message.term,
    index: message.index,
    logTerm: message.logTerm,
    entries: message.entries.map(entryToWire),
    commit: message.commit,
    reject: message.reject,
    rejectHint: message.rejectHint,
    rejectHintTerm: message.rejectHintTerm,
    snapshot: message.snapshot === null ? null : snapshotToWire(message.snapshot),
    context: message.context,
  };
}

export function raftMessageFromWire(message: raftq.raft.RaftMessage.$Properties): RaftMessage {
  return {
    type: (message.type ?? 0) as number as MessageType,
    from: message.from ?? '',
    to: message.to ?? '',
    term: Number(message.term ?? 0),
    index: Number(message.index ?? 0),
    logTerm: Number(message.logTerm ?? 0),
    entries: (message.entries ?? []).map(entryFromWire),
    commit: Number(message.commit ?? 0),
    reject: message.reject ?? false,
    rejectHint: Number(message.rejectHint ?? 0),
    rejectHintTerm: Number(message.rejectHintTerm ?? 0),
    snapshot: message.snapshot ? snapshotFromWire(message.snapshot) : null,
    context: message.context ?? emptyBytes,
  };
}

/** Wire size of an entry's payload, for the byte limits of batching and the log mirror. */
export function entryBytes(entry: Entry): number {
  return entry.data.byteLength + 24;
}
