import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RaftMessageCounts, raftMessageKind } from '../../src/cluster/raft-message-counts.js';
import { raftMessage } from '../../src/raft/raft-message.js';
import { EntryType, MessageType, type RaftMessage } from '../../src/raft/types.js';

function message(fields: Partial<RaftMessage> & Pick<RaftMessage, 'type'>): RaftMessage {
  return raftMessage({ from: 'n1', to: 'n2', term: 1, ...fields });
}

describe('Raft message counts', () => {
  it('names appends with and without entries apart, and every other kind by its type', () => {
    const entry = { index: 5, term: 2, type: EntryType.Normal, data: new Uint8Array([1]) };
    expect(raftMessageKind(message({ type: MessageType.App, entries: [entry] }))).toBe('app');
    expect(raftMessageKind(message({ type: MessageType.App, entries: [] }))).toBe('app-empty');
    expect(raftMessageKind(message({ type: MessageType.AppResp }))).toBe('app-resp');
    expect(raftMessageKind(message({ type: MessageType.Heartbeat }))).toBe('heartbeat');
    expect(raftMessageKind(message({ type: MessageType.PreVote }))).toBe('pre-vote');
  });

  it('counts each message once under its kind', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'sent', help: 'h', labelNames: ['kind'], registers: [registry] });
    const counts = new RaftMessageCounts(counter);
    for (let i = 0; i < 3; i++) counts.count(message({ type: MessageType.App, entries: [] }));
    counts.count(message({ type: MessageType.AppResp }));
    const values = (await counter.get()).values.map(({ labels, value }) => [labels['kind'], value]);
    expect(values).toEqual([
      ['app-empty', 3],
      ['app-resp', 1],
    ]);
  });
});
