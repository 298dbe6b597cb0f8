/**
 * Maps the Raft core's types (src/raft/types.ts) to the generated wire types of proto/raft.proto
 * and back. Only this file knows both shapes; the rest of the runtime speaks the core's types.
 *
 * An entry is encoded once: its wire bytes are kept (recentEntryBytes) and reused by the log write
 * and by the envelope of every follower it goes to, and a follower keeps the bytes it received
 * for its own log write.
 */
import { raftq } from '../gen/proto.js';
import type {
  ConfState,
  Entry,
  EntryType,
  HardState,
  MessageType,
  RaftMessage,
  Snapshot,
  SnapshotMeta,
} from '../raft/types.js';

const wire = raftq.raft;
const emptyBytes = new Uint8Array(0);
const utf8 = new TextEncoder();

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

/**
 * Wire bytes of the entries encoded or received lately, by entry object, oldest dropped first
 * beyond a byte budget: an entry goes to the log and to every follower within a Ready or two, and
 * one that is read again later (a follower catching up) is simply encoded again.
 */
class RecentEntryBytes {
  private readonly bytesByEntry = new Map<Entry, Uint8Array>();
  private totalBytes = 0;

  constructor(private readonly bytesMax: number) {}

  get(entry: Entry): Uint8Array | undefined {
    return this.bytesByEntry.get(entry);
  }

  set(entry: Entry, bytes: Uint8Array): void {
    if (this.bytesByEntry.has(entry)) return;
    this.bytesByEntry.set(entry, bytes);
    this.totalBytes += bytes.byteLength;
    for (const [oldest, oldestBytes] of this.bytesByEntry) {
      if (this.totalBytes <= this.bytesMax) break;
      this.bytesByEntry.delete(oldest);
      this.totalBytes -= oldestBytes.byteLength;
    }
  }
}

const recentEntryBytes = new RecentEntryBytes(16 * 1_048_576);

/** The entry's wire bytes (encoded once, see RecentEntryBytes). Entries are never changed in place. */
export function encodeEntry(entry: Entry): Uint8Array {
  const known = recentEntryBytes.get(entry);
  if (known !== undefined) return known;
  const bytes = wire.Entry.encode(entryToWire(entry)).finish();
  recentEntryBytes.set(entry, bytes);
  return bytes;
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
  return {
    index: Number(meta?.index ?? 0),
    term: Number(meta?.term ?? 0),
    confState: confStateFromWire(meta?.confState),
  };
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

/** Every field of the message but its entries. */
function raftMessageHeadToWire(message: RaftMessage): raftq.raft.RaftMessage.$Properties {
  return {
    type: message.type as number,
    from: message.from,
    to: message.to,
    term: message.term,
    index: message.index,
    logTerm: message.logTerm,
    commit: message.commit,
    reject: message.reject,
    rejectHint: message.rejectHint,
    rejectHintTerm: message.rejectHintTerm,
    snapshot: message.snapshot === null ? null : snapshotToWire(message.snapshot),
    context: message.context,
  };
}

export function raftMessageToWire(message: RaftMessage): raftq.raft.RaftMessage.$Properties {
  return { ...raftMessageHeadToWire(message), entries: message.entries.map(entryToWire) };
}

// Protobuf tags (field number << 3 | wire type) of the fields spliced by hand below.
const envelopeGroupIdTag = (1 << 3) | 0;
const envelopeMessageTag = (2 << 3) | 2;
const envelopeFromAddressTag = (3 << 3) | 2;
const messageEntriesTag = (7 << 3) | 2;
const lengthDelimited = 2;

/**
 * A RaftEnvelope's bytes, its entries spliced in from their wire bytes instead of encoded again
 * for each follower. Protobuf lets a message's fields come in any order, so the entries follow the
 * other fields; any protobuf decoder reads the result as RaftEnvelope. `fromAddress` is the
 * sender's Raft address ('' sends none).
 */
export function encodeRaftEnvelope(groupId: number, message: RaftMessage, fromAddress = ''): Uint8Array {
  const head = wire.RaftMessage.encode(raftMessageHeadToWire(message)).finish();
  const entries = message.entries.map(encodeEntry);
  const address = fromAddress === '' ? emptyBytes : utf8.encode(fromAddress);
  let messageBytes = head.byteLength;
  for (const bytes of entries) messageBytes += 1 + varintSize(bytes.byteLength) + bytes.byteLength;
  const addressBytes = address.byteLength === 0 ? 0 : 1 + varintSize(address.byteLength) + address.byteLength;
  const out = new Uint8Array(1 + varintSize(groupId) + addressBytes + 1 + varintSize(messageBytes) + messageBytes);
  let at = 0;
  out[at++] = envelopeGroupIdTag;
  at = writeVarint(out, at, groupId);
  if (address.byteLength > 0) {
    out[at++] = envelopeFromAddressTag;
    at = writeVarint(out, at, address.byteLength);
    out.set(address, at);
    at += address.byteLength;
  }
  out[at++] = envelopeMessageTag;
  at = writeVarint(out, at, messageBytes);
  out.set(head, at);
  at += head.byteLength;
  for (const bytes of entries) {
    out[at++] = messageEntriesTag;
    at = writeVarint(out, at, bytes.byteLength);
    out.set(bytes, at);
    at += bytes.byteLength;
  }
  return out;
}

/**
 * Decodes a RaftEnvelope and keeps each entry's bytes as received (for this node's log write);
 * `message` is null when the envelope carries none. Throws on bytes that are not a RaftEnvelope.
 */
export function decodeRaftEnvelope(bytes: Uint8Array): {
  groupId: number;
  fromAddress: string;
  message: RaftMessage | null;
} {
  const envelope = wire.RaftEnvelope.decode(bytes);
  const groupId = envelope.groupId ?? 0;
  const fromAddress = envelope.fromAddress ?? '';
  if (envelope.message === null || envelope.message === undefined) return { groupId, fromAddress, message: null };
  const message = raftMessageFromWire(envelope.message);
  if (message.entries.length > 0) {
    // The bytes were decoded above; a layout this scan does not know (a field group) only means
    // the entries get encoded again for the log write.
    let received: Uint8Array[] = [];
    try {
      received = entryBytesOf(bytes);
    } catch {
      received = [];
    }
    if (received.length === message.entries.length)
      message.entries.forEach((entry, i) => recentEntryBytes.set(entry, received[i] as Uint8Array));
  }
  return { groupId, fromAddress, message };
}

/** The bytes of each entry of an encoded RaftEnvelope's message, in order (views, not copies). */
function entryBytesOf(envelope: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  forEachField(envelope, 0, envelope.byteLength, (tag, start, end) => {
    if (tag !== envelopeMessageTag) return;
    forEachField(envelope, start, end, (innerTag, entryStart, entryEnd) => {
      if (innerTag === messageEntriesTag) entries.push(envelope.subarray(entryStart, entryEnd));
    });
  });
  return entries;
}

/** Calls `visit` with the tag and the bounds of the bytes of each length-delimited field in [start, end). */
function forEachField(
  bytes: Uint8Array,
  start: number,
  end: number,
  visit: (tag: number, valueStart: number, valueEnd: number) => void,
): void {
  let at = start;
  while (at < end) {
    const [tag, afterTag] = readVarint(bytes, at);
    at = afterTag;
    switch (tag & 7) {
      case 0:
        at = readVarint(bytes, at)[1];
        break;
      case 1:
        at += 8;
        break;
      case lengthDelimited: {
        const [length, afterLength] = readVarint(bytes, at);
        visit(tag, afterLength, afterLength + length);
        at = afterLength + length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new RangeError(`unexpected protobuf wire type ${tag & 7}`);
    }
  }
}

/** A varint at `at` (only its low 53 bits are kept: every length and tag here is far smaller) and where it ends. */
function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= bytes.byteLength) throw new RangeError('truncated protobuf varint');
    const byte = bytes[at++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 128;
  }
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size += 1;
  }
  return size;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
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
