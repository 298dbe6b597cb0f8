import { describe, expect, it } from 'vitest';
import { withoutSupersededAppends } from '../../src/raft/superseded-appends.js';
import { EntryType, MessageType, type RaftMessage } from '../../src/raft/types.js';

function message(type: MessageType, to: string, fields: Partial<RaftMessage> = {}): RaftMessage {
  return { type, from: 'n1', to, term: 2, index: 10, logTerm: 2, entries: [], commit: 9, reject: false, rejectHint: 0, rejectHintTerm: 0, snapshot: null, context: new Uint8Array(0), ...fields };
}

const entry = { term: 2, index: 11, type: EntryType.Normal, data: Uint8Array.of(1) };

describe('withoutSupersededAppends', () => {
  it('drops an empty append when a later append to the same follower in the same Ready commits as far', () => {
    const commitOnly = message(MessageType.App, 'n2', { commit: 10 });
    const withEntries = message(MessageType.App, 'n2', { commit: 10, entries: [entry] });
    const toOther = message(MessageType.App, 'n3', { commit: 10 });
    const heartbeat = message(MessageType.Heartbeat, 'n2', { commit: 10 });
    expect(withoutSupersededAppends([commitOnly, toOther, heartbeat, withEntries])).toEqual([toOther, heartbeat, withEntries]);
  });

  it('keeps an empty append that tells more than what follows it, or belongs to another term, or comes last', () => {
    const commitOnly = message(MessageType.App, 'n2', { commit: 12 });
    const behind = message(MessageType.App, 'n2', { commit: 11, entries: [entry] });
    expect(withoutSupersededAppends([commitOnly, behind])).toEqual([commitOnly, behind]);
    const oldTerm = message(MessageType.App, 'n2', { term: 1, commit: 9 });
    const newTerm = message(MessageType.App, 'n2', { term: 2, commit: 9, entries: [entry] });
    expect(withoutSupersededAppends([oldTerm, newTerm])).toEqual([oldTerm, newTerm]);
    const withEntries = message(MessageType.App, 'n2', { commit: 9, entries: [entry] });
    const last = message(MessageType.App, 'n2', { commit: 10 });
    expect(withoutSupersededAppends([withEntries, last])).toEqual([withEntries, last]);
  });

  it('drops every empty append but the last when several only move the commit index', () => {
    const first = message(MessageType.App, 'n2', { commit: 10 });
    const second = message(MessageType.App, 'n2', { commit: 11 });
    expect(withoutSupersededAppends([first, second])).toEqual([second]);
  });
});
