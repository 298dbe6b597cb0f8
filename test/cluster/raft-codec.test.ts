import { describe, expect, it } from 'vitest';
import { raftq } from '../../src/gen/proto.js';
import {
  decodeRaftEnvelope,
  encodeEntry,
  encodeRaftEnvelope,
  raftMessageFromWire,
  raftMessageToWire,
} from '../../src/cluster/raft-codec.js';
import { EntryType, MessageType, type Entry, type RaftMessage } from '../../src/raft/types.js';

function entry(index: number, bytes: number): Entry {
  return {
    term: 3,
    index,
    type: EntryType.Normal,
    data: Uint8Array.from({ length: bytes }, (_, i) => (i * 7 + index) % 256),
  };
}

function appendMessage(entries: Entry[]): RaftMessage {
  return {
    type: MessageType.App,
    from: 'n1',
    to: 'n2',
    term: 3,
    index: 41,
    logTerm: 2,
    entries,
    commit: 40,
    reject: false,
    rejectHint: 0,
    rejectHintTerm: 0,
    snapshot: null,
    context: new Uint8Array(0),
  };
}

/** The message with every byte field as a plain array (protobufjs decodes empty bytes as a Buffer). */
function plain(message: RaftMessage | null | undefined): unknown {
  if (message === null || message === undefined) return message;
  return {
    ...message,
    context: [...message.context],
    entries: message.entries.map((e) => ({ ...e, data: [...e.data] })),
  };
}

describe('raft-codec envelopes', () => {
  it('splices entries into an envelope any protobuf decoder reads as the same message', () => {
    const message = appendMessage([entry(42, 300), entry(43, 0), entry(44, 20_000)]);
    const bytes = encodeRaftEnvelope(7, message);
    const decoded = raftq.raft.RaftEnvelope.decode(bytes);
    expect(decoded.groupId).toBe(7);
    expect(plain(raftMessageFromWire(decoded.message as raftq.raft.RaftMessage))).toEqual(plain(message));
    const envelope = decodeRaftEnvelope(bytes);
    expect(envelope.groupId).toBe(7);
    expect(plain(envelope.message)).toEqual(plain(message));
  });

  it('decodes an envelope encoded field by field, and one without a message', () => {
    const message = appendMessage([entry(42, 5)]);
    const fieldByField = raftq.raft.RaftEnvelope.encode({ groupId: 1, message: raftMessageToWire(message) }).finish();
    expect(plain(decodeRaftEnvelope(fieldByField).message)).toEqual(plain(message));
    expect(decodeRaftEnvelope(raftq.raft.RaftEnvelope.encode({ groupId: 1 }).finish())).toEqual({
      groupId: 1,
      fromAddress: '',
      message: null,
    });
    expect(() => decodeRaftEnvelope(Uint8Array.of(0x12, 0x05, 0x01))).toThrow();
  });

  it("carries the sender's address beside the spliced entries, and none when it has none", () => {
    const message = appendMessage([entry(42, 300), entry(43, 20_000)]);
    const bytes = encodeRaftEnvelope(7, message, 'node-1.example:9326');
    const decoded = raftq.raft.RaftEnvelope.decode(bytes);
    expect(decoded.fromAddress).toBe('node-1.example:9326');
    expect(plain(raftMessageFromWire(decoded.message as raftq.raft.RaftMessage))).toEqual(plain(message));
    const envelope = decodeRaftEnvelope(bytes);
    expect(envelope.fromAddress).toBe('node-1.example:9326');
    expect(plain(envelope.message)).toEqual(plain(message));
    // The received entry bytes are still found (and reused) past the address field.
    const receivedBytes = encodeEntry((envelope.message as RaftMessage).entries[1] as Entry);
    expect(receivedBytes.buffer).toBe(bytes.buffer);
    expect(decodeRaftEnvelope(encodeRaftEnvelope(7, message)).fromAddress).toBe('');
    expect(encodeRaftEnvelope(7, message, '').byteLength).toBe(encodeRaftEnvelope(7, message).byteLength);
  });

  it('decodes an envelope that also holds a field group it does not know', () => {
    const message = appendMessage([entry(42, 30)]);
    const encoded = encodeRaftEnvelope(1, message);
    // Field 15 as an empty group (start and end tags), as a later version might send.
    const withGroup = new Uint8Array([...encoded, (15 << 3) | 3, (15 << 3) | 4]);
    expect(plain(decodeRaftEnvelope(withGroup).message)).toEqual(plain(message));
  });

  it('encodes an entry once for every follower and reuses the bytes a follower received', () => {
    const sent = entry(42, 1_000);
    const first = encodeEntry(sent);
    const toSecond = encodeRaftEnvelope(1, { ...appendMessage([sent]), to: 'n3' });
    expect(encodeEntry(sent)).toBe(first);
    const received = decodeRaftEnvelope(toSecond).message as RaftMessage;
    const receivedBytes = encodeEntry(received.entries[0] as Entry);
    expect(receivedBytes.buffer).toBe(toSecond.buffer);
    expect([...receivedBytes]).toEqual([...first]);
  });
});
