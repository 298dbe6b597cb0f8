import { describe, expect, it } from 'vitest';
import { EntryType, MessageType } from '../../src/raft/types.js';
import { NodeHarness, entry, ofType } from './support/node-harness.js';

const text = (data: Uint8Array): string => new TextDecoder().decode(data);
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A leader of a 3-node cluster at term 1 whose no-op (index 1) is committed. */
function settledLeader(): NodeHarness {
  const node = new NodeHarness();
  node.becomeLeader();
  node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 1 });
  node.step({ type: MessageType.AppResp, from: '3', term: 1, index: 1 });
  expect(node.raw.status().commit).toBe(1);
  return node;
}

describe('Raft §5.3: log replication', () => {
  // "The leader appends the command to its log as a new entry, then issues AppendEntries RPCs
  // in parallel to each of the other servers to replicate the entry."
  it('a leader appends a proposal to its log and sends it to every follower', () => {
    const node = settledLeader();
    node.raw.propose(bytes('x'));
    const out = node.flush();
    expect(node.logTerms()).toEqual([1, 1]);
    const apps = ofType(out, MessageType.App);
    expect(apps.map((m) => m.to)).toEqual(['2', '3']);
    for (const app of apps) {
      expect(app).toMatchObject({ index: 1, logTerm: 1, commit: 1 });
      expect(app.entries.map((e) => [e.term, e.index, text(e.data)])).toEqual([[1, 2, 'x']]);
    }
  });

  // "A log entry is committed once the leader that created the entry has replicated it on a
  // majority of the servers".
  it('an entry commits once a majority stores it, and not before', () => {
    const node = new NodeHarness({ voters: ['1', '2', '3', '4', '5'] });
    node.becomeLeader();
    node.raw.propose(bytes('x'));
    node.flush();
    node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 2 });
    expect(node.raw.status().commit).toBe(0);
    node.step({ type: MessageType.AppResp, from: '3', term: 1, index: 2 });
    expect(node.raw.status().commit).toBe(2);
    expect(node.committed.map((e) => text(e.data))).toEqual(['', 'x']);
  });

  // "This also commits all preceding entries in the leader's log, including entries created by
  // previous leaders."
  it('committing an entry of the current term commits every entry before it, of any term', () => {
    const node = new NodeHarness({ logTerms: [1, 2], term: 2 });
    node.raw.campaign();
    node.flush();
    node.step({ type: MessageType.VoteResp, from: '2', term: 3 });
    expect(node.raw.status().role).toBe('leader');
    node.step({ type: MessageType.AppResp, from: '2', term: 3, index: 3 });
    expect(node.raw.status().commit).toBe(3);
    expect(node.committed.map((e) => [e.term, e.index])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  // "The leader keeps track of the highest index it knows to be committed, and it includes that
  // index in future AppendEntries RPCs (including heartbeats) so that the other servers
  // eventually find out. Once a follower learns that a log entry is committed, it applies the
  // entry to its local state machine (in log order)."
  it('a follower learns the commit index from appends and heartbeats and applies in log order', () => {
    const node = new NodeHarness({ term: 1 });
    node.step({
      type: MessageType.App,
      from: '2',
      term: 1,
      index: 0,
      logTerm: 0,
      commit: 1,
      entries: [entry(1, 1, 'a'), entry(1, 2, 'b'), entry(1, 3, 'c')],
    });
    expect(node.committed.map((e) => text(e.data))).toEqual(['a']);
    node.step({ type: MessageType.Heartbeat, from: '2', term: 1, commit: 3 });
    expect(node.committed.map((e) => text(e.data))).toEqual(['a', 'b', 'c']);
    expect(node.raw.status()).toMatchObject({ commit: 3, applied: 3 });
  });

  // "When sending an AppendEntries RPC, the leader includes the index and term of the entry in
  // its log that immediately precedes the new entries. If the follower does not find an entry in
  // its log with the same index and term, then it refuses the new entries."
  const consistencyCases: { index: number; logTerm: number; isAccepted: boolean }[] = [
    { index: 2, logTerm: 1, isAccepted: true },
    { index: 2, logTerm: 2, isAccepted: false },
    { index: 3, logTerm: 1, isAccepted: false },
    { index: 0, logTerm: 0, isAccepted: true },
  ];
  for (const c of consistencyCases) {
    it(`a follower with log [1 1] ${c.isAccepted ? 'accepts' : 'refuses'} entries after ${c.logTerm}/${c.index}`, () => {
      const node = new NodeHarness({ term: 2, logTerms: [1, 1] });
      const out = node.step({
        type: MessageType.App,
        from: '2',
        term: 2,
        index: c.index,
        logTerm: c.logTerm,
        entries: [entry(2, c.index + 1)],
      });
      expect(ofType(out, MessageType.AppResp).map((m) => m.reject)).toEqual([!c.isAccepted]);
      expect(node.logTerms().length).toBe(c.isAccepted ? c.index + 1 : 2);
    });
  }

  // "In Raft, the leader handles inconsistencies by forcing the followers' logs to duplicate its
  // own. This means that conflicting entries in follower logs will be overwritten with entries
  // from the leader's log."
  it('a follower overwrites its conflicting uncommitted tail with the leader entries', () => {
    const node = new NodeHarness({ term: 2, logTerms: [1, 1, 2, 2], commit: 2 });
    node.step({ type: MessageType.App, from: '2', term: 3, index: 2, logTerm: 1, entries: [entry(3, 3)] });
    expect(node.logTerms()).toEqual([1, 1, 3]);
  });

  // "When a leader first comes to power, it initializes all nextIndex values to the index just
  // after the last one in its log".
  it('a new leader starts each follower at the index after its last entry', () => {
    const node = new NodeHarness({ logTerms: [1, 1, 2], term: 2 });
    const out = node.becomeLeader();
    for (const app of ofType(out, MessageType.App)) {
      expect(app).toMatchObject({ index: 3, logTerm: 2 });
      expect(app.entries.map((e) => [e.term, e.index])).toEqual([[3, 4]]);
    }
  });

  // "After a rejection, the leader decrements nextIndex and retries the AppendEntries RPC.
  // Eventually nextIndex will reach a point where the leader and follower logs match." and "when
  // rejecting an AppendEntries request, the follower can include the term of the conflicting
  // entry and the first index it stores for that term."
  it('after a rejection the leader retries from the point the follower hint allows, skipping a whole term', () => {
    // Leader log: 1 1 1 4 4 4 4 (then its no-op at 5/8); the follower has 1 1 1 2 2 2 2 2 2.
    const leader = new NodeHarness({ logTerms: [1, 1, 1, 4, 4, 4, 4], term: 4 });
    leader.becomeLeader();
    const follower = new NodeHarness({ id: '2', logTerms: [1, 1, 1, 2, 2, 2, 2, 2, 2], term: 4 });
    const rejections = follower.step({
      type: MessageType.App,
      from: '1',
      term: 5,
      index: 7,
      logTerm: 4,
      entries: [entry(5, 8)],
    });
    const [rejection] = ofType(rejections, MessageType.AppResp);
    expect(rejection).toMatchObject({ reject: true, index: 7, rejectHint: 7, rejectHintTerm: 2 });
    const retry = ofType(leader.step({ ...rejection!, to: '1' }), MessageType.App);
    // The leader has no term-2 entries: it skips straight to index 3, the last of term <= 2.
    expect(retry.map((m) => [m.to, m.index, m.logTerm])).toEqual([['2', 3, 1]]);
    const accepted = follower.step({ ...retry[0]!, to: '2' });
    expect(ofType(accepted, MessageType.AppResp)[0]).toMatchObject({ reject: false, index: 8 });
    expect(follower.logTerms()).toEqual([1, 1, 1, 4, 4, 4, 4, 5]);
  });

  // "A leader never overwrites or deletes entries in its own log (the Leader Append-Only
  // Property in Figure 3)."
  it('a leader never changes its own log when followers reject or answer late', () => {
    const node = new NodeHarness({ logTerms: [1, 1, 2], term: 2 });
    node.becomeLeader();
    const before = node.logTerms();
    node.step({
      type: MessageType.AppResp,
      from: '2',
      term: 3,
      index: 3,
      reject: true,
      rejectHint: 0,
      rejectHintTerm: 0,
    });
    node.step({ type: MessageType.AppResp, from: '3', term: 3, index: 1 });
    node.step({ type: MessageType.AppResp, from: '3', term: 2, index: 1 });
    node.step({ type: MessageType.Vote, from: '2', term: 3, index: 99, logTerm: 9 });
    expect(node.logTerms()).toEqual(before);
  });
});

describe('Raft §5.4.2: committing entries from previous terms', () => {
  // "Raft never commits log entries from previous terms by counting replicas. Only log entries
  // from the leader's current term are committed by counting replicas; once an entry from the
  // current term has been committed in this way, then all prior entries are committed
  // indirectly because of the Log Matching Property."
  it('an entry of an earlier term on a majority stays uncommitted until an entry of the current term commits', () => {
    const node = new NodeHarness({ logTerms: [1, 2], term: 2, commit: 1 });
    node.raw.campaign();
    node.flush();
    node.step({ type: MessageType.VoteResp, from: '2', term: 3 });
    node.step({ type: MessageType.AppResp, from: '2', term: 3, index: 2 });
    node.step({ type: MessageType.AppResp, from: '3', term: 3, index: 2 });
    expect(node.raw.status().commit).toBe(1);
    node.step({ type: MessageType.AppResp, from: '3', term: 3, index: 3 });
    expect(node.raw.status().commit).toBe(3);
  });
});

describe('Raft §5.5: follower crashes', () => {
  // "Raft RPCs are idempotent, so this causes no harm. For example, if a follower receives an
  // AppendEntries request that includes log entries already present in its log, it ignores
  // those entries in the new request."
  it('a repeated append leaves the log as it was and is acknowledged again', () => {
    const node = new NodeHarness({ term: 1 });
    const app = {
      type: MessageType.App,
      from: '2',
      term: 1,
      index: 0,
      logTerm: 0,
      entries: [entry(1, 1, 'a'), entry(1, 2, 'b')],
    } as const;
    const first = node.step(app);
    node.step({ type: MessageType.App, from: '2', term: 1, index: 2, logTerm: 1, entries: [entry(1, 3, 'c')] });
    const again = node.step(app);
    expect(node.logTerms()).toEqual([1, 1, 1]);
    expect(ofType(again, MessageType.AppResp).map((m) => m.index)).toEqual(
      ofType(first, MessageType.AppResp).map((m) => m.index),
    );
  });
});

describe('Raft §7: log compaction', () => {
  // "the leader must occasionally send snapshots to followers that lag behind."
  it('a leader sends its snapshot to a follower that needs compacted entries', () => {
    const node = new NodeHarness({ logTerms: [1, 1, 1, 1], term: 1, commit: 4 });
    node.storage.createSnapshot(3, { voters: ['1', '2', '3'], learners: [] }, bytes('state@3'));
    node.storage.compact(3);
    node.becomeLeader();
    // Follower 2 rejects: it has nothing; the entries it needs (1..3) are gone.
    const out = node.step({
      type: MessageType.AppResp,
      from: '2',
      term: 2,
      index: 4,
      reject: true,
      rejectHint: 0,
      rejectHintTerm: 0,
    });
    const snaps = ofType(out, MessageType.Snap);
    expect(snaps.map((m) => [m.to, m.snapshot?.meta.index, text(m.snapshot?.data ?? new Uint8Array(0))])).toEqual([
      ['2', 3, 'state@3'],
    ]);
    expect(node.raw.status().progress.get('2')?.state).toBe('snapshot');
  });

  // "Usually the snapshot will contain new information not already in the recipient's log. In
  // this case, the follower discards its entire log; it is all superseded by the snapshot".
  it('a follower installs a snapshot with new information and discards its log', () => {
    const node = new NodeHarness({ term: 1, logTerms: [1, 1] });
    const snapshot = {
      meta: { index: 5, term: 2, confState: { voters: ['1', '2', '3'], learners: [] } },
      data: bytes('s'),
    };
    const out = node.step({ type: MessageType.Snap, from: '2', term: 2, snapshot });
    expect(ofType(out, MessageType.AppResp)[0]).toMatchObject({ index: 5, reject: false });
    expect(node.storage.snapshot().meta.index).toBe(5);
    expect(node.logTerms()).toEqual([]);
    expect(node.raw.status()).toMatchObject({ commit: 5, applied: 5, lastIndex: 5 });
  });

  // "If instead the follower receives a snapshot that describes a prefix of its log (due to
  // retransmission or by mistake), then log entries covered by the snapshot are deleted but
  // entries following the snapshot are still valid and must be retained."
  it('a snapshot that describes a prefix of the log keeps the entries after it', () => {
    const node = new NodeHarness({ term: 2, logTerms: [1, 1, 2, 2] });
    const snapshot = {
      meta: { index: 2, term: 1, confState: { voters: ['1', '2', '3'], learners: [] } },
      data: bytes('s'),
    };
    const out = node.step({ type: MessageType.Snap, from: '2', term: 2, snapshot });
    // It acknowledges only the prefix the snapshot proves; the leader probes the rest.
    expect(ofType(out, MessageType.AppResp)[0]).toMatchObject({ index: 2, reject: false });
    expect(node.logTerms()).toEqual([1, 1, 2, 2]);
    expect(node.raw.status().commit).toBe(2);
  });
});

describe('Raft §8: client interaction', () => {
  // "Raft handles this by having each leader commit a blank no-op entry into the log at the
  // start of its term."
  it('a new leader appends a blank no-op entry of its term', () => {
    const node = new NodeHarness({ logTerms: [1, 1], term: 1 });
    node.becomeLeader();
    const last = node.storage.entries(3, 4, 1_000)[0]!;
    expect(last).toMatchObject({ index: 3, term: 2, type: EntryType.Normal });
    expect(last.data.length).toBe(0);
  });
});
