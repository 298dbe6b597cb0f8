import { describe, expect, it } from 'vitest';
import { TailRepairGuard } from '../../src/cluster/tail-repair-guard.js';
import { MessageType, type RaftMessage } from '../../src/raft/types.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import type { LogTailRepair } from '../../src/cluster/log-tail-repair.js';

const repair: LogTailRepair = {
  walDamage: { file: '000003.log', offsetBytes: 100, kind: 'truncated-record' },
  entryDamage: null,
  intactLastIndex: 40,
  keptLastIndex: 30,
  commitIndexBefore: 30,
  commitIndexAfter: 30,
};

function message(type: MessageType, fields: Partial<RaftMessage> = {}): RaftMessage {
  return raftMessage({ type, from: 'n1', to: 'n2', term: 3, ...fields });
}

describe('TailRepairGuard', () => {
  it('drops vote, pre-vote and TimeoutNow requests while repairing, and lets them through once repaired', () => {
    const guard = new TailRepairGuard(repair, 2);
    for (const type of [MessageType.Vote, MessageType.PreVote, MessageType.TimeoutNow])
      expect(guard.admit(message(type), 30)).toBeNull();
    expect(guard.admit(message(MessageType.App, { commit: 45 }), 30)).not.toBeNull();
    guard.tick();
    guard.tick();
    expect(guard.maybeFinish({ lastIndex: 45, leader: 'n1' })).toBe(true);
    expect(guard.admit(message(MessageType.Vote), 45)).not.toBeNull();
  });

  it('does not tick the core while repairing, so the node never campaigns', () => {
    const guard = new TailRepairGuard(repair, 2);
    expect(guard.tick()).toBe(false);
    expect(new TailRepairGuard(null, 2).tick()).toBe(true);
  });

  it("keeps a heartbeat's commit index within the log, repairing or not", () => {
    const guard = new TailRepairGuard(null, 2);
    expect(guard.admit(message(MessageType.Heartbeat, { commit: 50 }), 30)?.commit).toBe(30);
    expect(guard.admit(message(MessageType.Heartbeat, { commit: 20 }), 30)?.commit).toBe(20);
  });

  it("finishes only with a leader, after the settling ticks, holding every entry up to the leader's commit index", () => {
    const guard = new TailRepairGuard(repair, 3);
    guard.admit(message(MessageType.Heartbeat, { commit: 60 }), 30);
    expect(guard.maybeFinish({ lastIndex: 60, leader: 'n1' })).toBe(false); // too early
    for (let i = 0; i < 3; i++) guard.tick();
    expect(guard.maybeFinish({ lastIndex: 60, leader: '' })).toBe(false);
    expect(guard.maybeFinish({ lastIndex: 59, leader: 'n1' })).toBe(false);
    expect(guard.isRepairing).toBe(true);
    expect(guard.maybeFinish({ lastIndex: 60, leader: 'n1' })).toBe(true);
    expect(guard.state).toBe('repaired');
    expect(guard.maybeFinish({ lastIndex: 60, leader: 'n1' })).toBe(false);
  });

  it('does not finish before any leader told it a commit index, even if the log is long enough', () => {
    const guard = new TailRepairGuard(repair, 0);
    expect(guard.maybeFinish({ lastIndex: 100, leader: 'n1' })).toBe(false);
  });

  it('is intact when the log was whole', () => {
    const guard = new TailRepairGuard(null, 2);
    expect(guard.state).toBe('intact');
    expect(guard.admit(message(MessageType.Vote), 0)).not.toBeNull();
  });
});
