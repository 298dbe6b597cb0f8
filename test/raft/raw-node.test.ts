import { describe, expect, it } from 'vitest';
import { AssertionFailedError } from '../../src/base/assert.js';
import { SeededPrng } from '../../src/base/prng.js';
import { MemoryRaftStorage } from '../../src/raft/memory-storage.js';
import { RawNode } from '../../src/raft/raw-node.js';
import { MessageType } from '../../src/raft/types.js';
import { NodeHarness, entry } from './support/node-harness.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function singleNode(
  storage = new MemoryRaftStorage({ confState: { voters: ['1'], learners: [] } }),
  applied?: number,
): RawNode {
  return new RawNode({ ...configOf(storage), ...(applied === undefined ? {} : { applied }) });
}

describe('RawNode: the Ready contract', () => {
  it('hands out each message once: taking a Ready takes its messages', () => {
    const node = new NodeHarness();
    node.raw.campaign();
    expect(node.raw.hasReady()).toBe(true);
    const ready = node.raw.ready();
    expect(ready.messages.map((m) => m.type)).toEqual([MessageType.Vote, MessageType.Vote]);
    node.handleReady(ready);
    expect(node.raw.hasReady()).toBe(false);
  });

  it('includes the hard state only when term, vote or commit changed', () => {
    const node = new NodeHarness({ term: 1 });
    expect(node.raw.hasReady()).toBe(false);
    node.raw.step({ ...heartbeat(), commit: 0 });
    const ready = node.raw.ready();
    expect(ready.hardState).toBeNull();
    expect(ready.softState).toEqual({ leader: '2', role: 'follower' });
    node.handleReady(ready);
    node.raw.campaign();
    expect(node.raw.ready().hardState).toEqual({ term: 2, vote: '1', commit: 0 });
  });

  it('refuses a second ready() before advance(), but accepts input in between', () => {
    const node = new NodeHarness();
    node.raw.campaign();
    const first = node.raw.ready();
    expect(() => node.raw.ready()).toThrow(AssertionFailedError);
    expect(node.raw.hasReady()).toBe(false);
    node.raw.step({
      type: MessageType.VoteResp,
      from: '2',
      to: '1',
      term: 1,
      index: 0,
      logTerm: 0,
      entries: [],
      commit: 0,
      reject: false,
      rejectHint: 0,
      rejectHintTerm: 0,
      snapshot: null,
      context: new Uint8Array(0),
    });
    node.handleReady(first);
    const second = node.raw.ready();
    expect(second.softState?.role).toBe('leader');
    expect(second.entries.map((e) => e.index)).toEqual([1]);
  });

  it('does not count the leader own entries toward commit until they are persisted', () => {
    const node = new NodeHarness();
    node.becomeLeader();
    node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 1 });
    node.raw.propose(bytes('x'));
    // Follower 2 acknowledges before the leader has persisted (and so before advance()).
    node.raw.step({
      type: MessageType.AppResp,
      from: '2',
      to: '1',
      term: 1,
      index: 2,
      logTerm: 0,
      entries: [],
      commit: 0,
      reject: false,
      rejectHint: 0,
      rejectHintTerm: 0,
      snapshot: null,
      context: new Uint8Array(0),
    });
    expect(node.raw.status().commit).toBe(1);
    node.flush();
    expect(node.raw.status().commit).toBe(2);
  });

  it('a single-node cluster elects itself and commits each proposal once it is persisted', () => {
    const storage = new MemoryRaftStorage({ confState: { voters: ['1'], learners: [] } });
    const raw = singleNode(storage);
    raw.campaign();
    expect(raw.status().role).toBe('leader');
    raw.propose(bytes('a'));
    const first = raw.ready();
    expect(first.entries.map((e) => e.index)).toEqual([1, 2]);
    expect(first.committedEntries).toEqual([]);
    storage.append(first.entries);
    raw.advance(first);
    const second = raw.ready();
    expect(second.committedEntries.map((e) => new TextDecoder().decode(e.data))).toEqual(['', 'a']);
    expect(second.hardState?.commit).toBe(2);
    raw.advance(second);
    expect(raw.hasReady()).toBe(false);
  });

  it('after a restart hands out only the committed entries past `applied`', () => {
    const storage = new MemoryRaftStorage({
      confState: { voters: ['1'], learners: [] },
      hardState: { term: 1, vote: '1', commit: 3 },
    });
    storage.append([entry(1, 1, 'a'), entry(1, 2, 'b'), entry(1, 3, 'c')]);
    const raw = singleNode(storage, 2);
    const ready = raw.ready();
    expect(ready.committedEntries.map((e) => new TextDecoder().decode(e.data))).toEqual(['c']);
    expect(raw.status()).toMatchObject({ term: 1, vote: '1', commit: 3, applied: 2, role: 'follower' });
  });

  it('bounds the committed entries of one Ready by readyCommittedBytesMax', () => {
    const storage = new MemoryRaftStorage({
      confState: { voters: ['1'], learners: [] },
      hardState: { term: 1, vote: '1', commit: 10 },
    });
    storage.append(Array.from({ length: 10 }, (_, i) => entry(1, i + 1, 'x'.repeat(100))));
    const raw = new RawNode({ ...configOf(storage), readyCommittedBytesMax: 300 });
    const sizes: number[] = [];
    while (raw.hasReady()) {
      const ready = raw.ready();
      sizes.push(ready.committedEntries.length);
      raw.advance(ready);
    }
    expect(sizes).toEqual([2, 2, 2, 2, 2]);
  });

  it('ignores messages addressed to another node and local-only message types', () => {
    const node = new NodeHarness({ term: 1 });
    node.raw.step({ ...heartbeat(), to: '3' });
    node.raw.step({ ...heartbeat(), type: MessageType.Hup });
    expect(node.raw.hasReady()).toBe(false);
    expect(node.raw.status().role).toBe('follower');
  });
});

function heartbeat() {
  return {
    type: MessageType.Heartbeat,
    from: '2',
    to: '1',
    term: 1,
    index: 0,
    logTerm: 0,
    entries: [],
    commit: 0,
    reject: false,
    rejectHint: 0,
    rejectHintTerm: 0,
    snapshot: null,
    context: new Uint8Array(0),
  };
}

function configOf(storage: MemoryRaftStorage) {
  return {
    id: '1',
    storage,
    prng: new SeededPrng(1),
    electionTimeoutTicks: 10,
    heartbeatTicks: 1,
    inflightMessagesMax: 16,
    appendBytesMax: 1 << 20,
    uncommittedBytesMax: 1 << 20,
    preVote: true,
    checkQuorum: true,
  };
}

describe('RawNode: ReadIndex on a single voter', () => {
  it('answers from the commit index without a heartbeat round, once its term has a committed entry', () => {
    const storage = new MemoryRaftStorage({ confState: { voters: ['1'], learners: [] } });
    const raw = singleNode(storage);
    raw.campaign();
    raw.readIndex(bytes('early'));
    const first = raw.ready();
    expect(first.readStates).toEqual([]);
    storage.append(first.entries);
    raw.advance(first);
    const second = raw.ready();
    expect(second.readStates.map((rs) => [rs.index, new TextDecoder().decode(rs.requestCtx)])).toEqual([[1, 'early']]);
    expect(second.messages).toEqual([]);
  });
});
