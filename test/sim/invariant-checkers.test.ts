import { describe, expect, it } from 'vitest';
import type { Entry, RaftMessage } from '../../src/raft/types.js';
import { EntryType, MessageType } from '../../src/raft/types.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import { chainAppliedDigest, initialAppliedDigest } from './applied-digest.js';
import { DurabilityChecker } from './invariants/durability-checker.js';
import { ElectionSafetyChecker } from './invariants/election-safety-checker.js';
import { InvariantViolationError, type InvariantName } from './invariants/invariant-violation-error.js';
import { LeaderAppendOnlyChecker } from './invariants/leader-append-only-checker.js';
import { LeaderCompletenessChecker } from './invariants/leader-completeness-checker.js';
import { LinearizableReadChecker } from './invariants/linearizable-read-checker.js';
import { LogMatchingChecker } from './invariants/log-matching-checker.js';
import type { LogView } from './invariants/log-view.js';
import { MonotonicityChecker } from './invariants/monotonicity-checker.js';
import { PersistBeforeSendChecker } from './invariants/persist-before-send-checker.js';
import { StateMachineSafetyChecker } from './invariants/state-machine-safety-checker.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const entry = (index: number, term: number, data = ''): Entry => ({
  index,
  term,
  type: EntryType.Normal,
  data: bytes(data),
});

/** A log given as the terms of entries 1..n, after an optional snapshot. */
function logOf(terms: readonly number[], snapshotIndex = 0): LogView {
  return {
    snapshotIndex,
    lastIndex: snapshotIndex + terms.length,
    termAt: (index) => (index > snapshotIndex ? terms[index - snapshotIndex - 1] : undefined),
  };
}

function expectViolation(invariant: InvariantName, action: () => void): void {
  let caught: unknown;
  try {
    action();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvariantViolationError);
  expect((caught as InvariantViolationError).invariant).toBe(invariant);
}

describe('ElectionSafetyChecker', () => {
  it('accepts one leader per term, and the same leader seen again', () => {
    const checker = new ElectionSafetyChecker();
    checker.observeLeader('1', 2);
    checker.observeLeader('1', 2);
    checker.observeLeader('2', 3);
  });

  it('fails when two nodes lead the same term', () => {
    const checker = new ElectionSafetyChecker();
    checker.observeLeader('1', 2);
    expectViolation('electionSafety', () => checker.observeLeader('3', 2));
  });
});

describe('LeaderAppendOnlyChecker', () => {
  it('accepts a leader that only appends, and a new term that says otherwise', () => {
    const checker = new LeaderAppendOnlyChecker();
    checker.observeAppendSent('1', 2, 0, 0, [entry(1, 2), entry(2, 2)]);
    checker.observeAppendSent('1', 2, 2, 2, [entry(3, 2)]);
    checker.observeAppendSent('1', 4, 1, 2, [entry(2, 4)]);
    checker.observeLeaderWrite('1', 4, 3, 2);
  });

  it('fails when a leader sends a different term for an index within its term', () => {
    const checker = new LeaderAppendOnlyChecker();
    checker.observeAppendSent('1', 2, 0, 0, [entry(1, 2), entry(2, 2)]);
    expectViolation('leaderAppendOnly', () => checker.observeAppendSent('1', 2, 1, 1, []));
  });

  it('fails when a leader overwrites its own log', () => {
    const checker = new LeaderAppendOnlyChecker();
    expectViolation('leaderAppendOnly', () => checker.observeLeaderWrite('1', 3, 5, 7));
  });
});

describe('LogMatchingChecker', () => {
  it('accepts the same entries written to several logs', () => {
    const checker = new LogMatchingChecker();
    const entries = [entry(1, 1, 'a'), entry(2, 1, 'b')];
    checker.observeEntries(0, 0, entries, 'node 1');
    checker.observeEntries(0, 0, entries, 'node 2');
    checker.observeEntries(1, 1, [entry(2, 1, 'b')], 'node 3');
  });

  it('fails when an (index, term) carries different contents in two logs', () => {
    const checker = new LogMatchingChecker();
    checker.observeEntries(0, 0, [entry(1, 1, 'a')], 'node 1');
    expectViolation('logMatching', () => checker.observeEntries(0, 0, [entry(1, 1, 'x')], 'node 2'));
  });

  it('fails when an (index, term) follows different predecessors', () => {
    const checker = new LogMatchingChecker();
    checker.observeEntries(1, 1, [entry(2, 3, 'a')], 'node 1');
    expectViolation('logMatching', () => checker.observeEntries(1, 2, [entry(2, 3, 'a')], 'node 2'));
  });

  it('fails on a gap inside one batch of entries', () => {
    const checker = new LogMatchingChecker();
    expectViolation('logMatching', () => checker.observeEntries(0, 0, [entry(1, 1), entry(3, 1)], 'node 1'));
  });
});

describe('LeaderCompletenessChecker', () => {
  it('accepts later leaders that hold every committed entry, and compaction below their snapshot', () => {
    const checker = new LeaderCompletenessChecker();
    checker.observeCommit('1', 2, 0, 2, logOf([1, 2]));
    checker.observeLeader('2', 3, logOf([1, 2, 3]));
    checker.observeLeader('3', 4, logOf([4], 2));
  });

  it('ignores a stale leader of an earlier term that lacks what a later term committed', () => {
    const checker = new LeaderCompletenessChecker();
    checker.observeCommit('1', 5, 0, 1, logOf([5]));
    checker.observeLeader('2', 4, logOf([]));
  });

  it('fails when a leader of a later term lacks a committed entry', () => {
    const checker = new LeaderCompletenessChecker();
    checker.observeCommit('1', 2, 0, 2, logOf([1, 2]));
    expectViolation('leaderCompleteness', () => checker.observeLeader('3', 3, logOf([1])));
  });

  it('fails when a leader holds another term at a committed index (Figure 8)', () => {
    const checker = new LeaderCompletenessChecker();
    checker.observeCommit('1', 4, 0, 2, logOf([1, 2]));
    expectViolation('leaderCompleteness', () => checker.observeLeader('5', 5, logOf([1, 3])));
  });

  it('fails when two nodes commit different terms at one index', () => {
    const checker = new LeaderCompletenessChecker();
    checker.observeCommit('1', 2, 0, 1, logOf([2]));
    expectViolation('leaderCompleteness', () => checker.observeCommit('2', 3, 0, 1, logOf([3])));
  });
});

describe('StateMachineSafetyChecker', () => {
  const digestAfter = (...entries: Entry[]): string =>
    entries.reduce((d, e) => chainAppliedDigest(d, e), initialAppliedDigest);

  it('accepts nodes applying the same entries, in order', () => {
    const checker = new StateMachineSafetyChecker();
    const e1 = entry(1, 1, 'a');
    const e2 = entry(2, 1, 'b');
    for (const node of ['1', '2']) {
      checker.observeApply(node, 0, e1, digestAfter(e1));
      checker.observeApply(node, 1, e2, digestAfter(e1, e2));
    }
    checker.observeRestore('3', 2, digestAfter(e1, e2));
  });

  it('fails when two nodes apply different entries at one index', () => {
    const checker = new StateMachineSafetyChecker();
    const a = entry(1, 1, 'a');
    const b = entry(1, 2, 'b');
    checker.observeApply('1', 0, a, digestAfter(a));
    expectViolation('stateMachineSafety', () => checker.observeApply('2', 0, b, digestAfter(b)));
  });

  it('fails when a snapshot carries a history nobody applied', () => {
    const checker = new StateMachineSafetyChecker();
    const a = entry(1, 1, 'a');
    checker.observeApply('1', 0, a, digestAfter(a));
    expectViolation('stateMachineSafety', () => checker.observeRestore('2', 1, digestAfter(entry(1, 1, 'z'))));
  });

  it('fails when a node skips an index', () => {
    const checker = new StateMachineSafetyChecker();
    const e3 = entry(3, 1);
    expectViolation('stateMachineSafety', () => checker.observeApply('1', 1, e3, digestAfter(e3)));
  });
});

describe('DurabilityChecker', () => {
  const applied = (appliedIndex: number, values: Record<number, string>) => ({
    appliedIndex,
    valueAt: (i: number) => values[i],
  });

  it('accepts later leaders and members that kept every acknowledged value', () => {
    const checker = new DurabilityChecker();
    checker.observeAck('v1', 2, 1, 1);
    checker.observeLeader('2', 3, logOf([1, 1, 3]), applied(1, {}));
    checker.observeLeader('3', 4, logOf([4], 3), applied(3, { 2: 'v1' }));
    checker.checkMemberApplied('1', applied(5, { 2: 'v1' }));
  });

  it('fails when a later leader lacks an acknowledged value', () => {
    const checker = new DurabilityChecker();
    checker.observeAck('v1', 2, 1, 1);
    expectViolation('durability', () => checker.observeLeader('2', 2, logOf([1, 2]), applied(0, {})));
  });

  it('fails when a member applied something else where an acknowledged value was', () => {
    const checker = new DurabilityChecker();
    checker.observeAck('v1', 2, 1, 1);
    expectViolation('durability', () => checker.checkMemberApplied('3', applied(4, { 2: 'v9' })));
  });

  it('fails when a member never applied up to an acknowledged value', () => {
    const checker = new DurabilityChecker();
    checker.observeAck('v1', 5, 1, 1);
    expectViolation('durability', () => checker.checkMemberApplied('3', applied(4, {})));
  });
});

describe('MonotonicityChecker', () => {
  it('accepts durable progress that only grows', () => {
    const checker = new MonotonicityChecker();
    checker.observeDurable('1', { term: 1, commit: 0, applied: 0 }, 'after a write');
    checker.observeDurable('1', { term: 2, commit: 3, applied: 3 }, 'at restart');
  });

  for (const field of ['term', 'commit', 'applied'] as const) {
    it(`fails when the durable ${field} goes back across a restart`, () => {
      const checker = new MonotonicityChecker();
      checker.observeDurable('1', { term: 5, commit: 5, applied: 5 }, 'after a write');
      expectViolation('monotonicity', () =>
        checker.observeDurable('1', { term: 5, commit: 5, applied: 5, [field]: 4 }, 'at restart'),
      );
    });
  }
});

describe('LinearizableReadChecker', () => {
  it('accepts a read that covers every write acknowledged before it', () => {
    const checker = new LinearizableReadChecker();
    checker.observeReadRequest('r1', 7);
    checker.observeReadState('2', 'r1', 7);
  });

  it('fails when a read returns an index older than an acknowledged write', () => {
    const checker = new LinearizableReadChecker();
    checker.observeReadRequest('r1', 7);
    expectViolation('linearizableReads', () => checker.observeReadState('2', 'r1', 6));
  });

  it('fails when a read nobody asked for is answered', () => {
    expectViolation('linearizableReads', () => new LinearizableReadChecker().observeReadState('2', 'r9', 6));
  });
});

describe('PersistBeforeSendChecker', () => {
  const message = (fields: Partial<RaftMessage> & Pick<RaftMessage, 'type' | 'from' | 'to' | 'term'>): RaftMessage =>
    raftMessage(fields);

  it('accepts a restart whose durable state backs every vote and acknowledgement sent', () => {
    const checker = new PersistBeforeSendChecker();
    checker.observeSent(message({ type: MessageType.VoteResp, from: '2', to: '1', term: 3 }));
    checker.observeSent(message({ type: MessageType.AppResp, from: '2', to: '1', term: 3, index: 4 }));
    checker.observeSent(message({ type: MessageType.PreVote, from: '2', to: '1', term: 9 }));
    checker.observeRestart('2', { term: 3, vote: '1' }, logOf([1, 1, 3, 3]));
  });

  it('fails when a node restarts in an older term than it announced', () => {
    const checker = new PersistBeforeSendChecker();
    checker.observeSent(message({ type: MessageType.Vote, from: '2', to: '1', term: 4 }));
    expectViolation('persistBeforeSend', () => checker.observeRestart('2', { term: 3, vote: '' }, logOf([])));
  });

  it('fails when a node restarts without the vote it granted', () => {
    const checker = new PersistBeforeSendChecker();
    checker.observeSent(message({ type: MessageType.VoteResp, from: '2', to: '1', term: 3 }));
    expectViolation('persistBeforeSend', () => checker.observeRestart('2', { term: 3, vote: '' }, logOf([])));
  });

  it('fails when a node restarts without entries it acknowledged', () => {
    const checker = new PersistBeforeSendChecker();
    checker.observeSent(message({ type: MessageType.AppResp, from: '2', to: '1', term: 3, index: 4 }));
    expectViolation('persistBeforeSend', () => checker.observeRestart('2', { term: 3, vote: '1' }, logOf([1, 1, 3])));
  });
});
