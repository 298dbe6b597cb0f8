import { describe, expect, it } from 'vitest';
import { entrySizeBytes } from '../../src/raft/entry-size.js';
import { ProposalDroppedError } from '../../src/raft/errors.js';
import type { HarnessOptions } from './support/node-harness.js';
import { NodeHarness, ofType } from './support/node-harness.js';
import { MessageType, type RaftMessage } from '../../src/raft/types.js';

const payload = (sizeBytes: number, tag = 'x'): Uint8Array => new TextEncoder().encode(tag.repeat(sizeBytes));

/** A leader whose followers acknowledged the no-op: both are in replicate state. */
function replicatingLeader(options: HarnessOptions): NodeHarness {
  const node = new NodeHarness(options);
  node.becomeLeader();
  node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 1 });
  node.step({ type: MessageType.AppResp, from: '3', term: 1, index: 1 });
  expect(node.raw.status().progress.get('2')?.state).toBe('replicate');
  return node;
}

function appsTo(messages: readonly RaftMessage[], to: string): RaftMessage[] {
  return ofType(messages, MessageType.App).filter((m) => m.to === to && m.entries.length > 0);
}

describe('flow control', () => {
  it('pipelines at most inflightMessagesMax appends to a follower, then resumes as acknowledgements free the window', () => {
    const node = replicatingLeader({ inflightMessagesMax: 3 });
    let sent: RaftMessage[] = [];
    for (let i = 0; i < 10; i++) {
      node.raw.propose(payload(10));
      sent = sent.concat(appsTo(node.flush(), '2'));
    }
    expect(sent.map((m) => m.entries.map((e) => e.index))).toEqual([[2], [3], [4]]);
    expect(node.raw.status().progress.get('2')).toMatchObject({ state: 'replicate', inflightMessages: 3 });
    // One acknowledgement frees one slot; the leader fills it with everything that waited.
    const after = appsTo(node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 2 }), '2');
    expect(after.map((m) => m.entries.map((e) => e.index))).toEqual([[5, 6, 7, 8, 9, 10, 11]]);
  });

  it('caps the entry bytes of one append at appendBytesMax, letting a lone oversized entry through', () => {
    const entryBytes = entrySizeBytes({ term: 1, index: 1, type: 0, data: payload(50) });
    const node = replicatingLeader({ inflightMessagesMax: 1, appendBytesMax: 2 * entryBytes });
    node.raw.propose(payload(50));
    node.flush();
    for (let i = 0; i < 4; i++) node.raw.propose(payload(50));
    node.raw.propose(payload(500));
    node.flush();
    const batches: number[][] = [];
    let acked = 2;
    for (let round = 0; round < 10; round++) {
      const apps = appsTo(node.step({ type: MessageType.AppResp, from: '2', term: 1, index: acked }), '2');
      if (apps.length === 0) break;
      for (const app of apps) {
        batches.push(app.entries.map((e) => e.index));
        acked = app.entries[app.entries.length - 1]!.index;
      }
    }
    expect(batches).toEqual([[3, 4], [5, 6], [7]]);
  });

  it('stops sending when the bytes in flight reach inflightBytesMax', () => {
    const entryBytes = entrySizeBytes({ term: 1, index: 1, type: 0, data: payload(100) });
    const node = replicatingLeader({ inflightMessagesMax: 100, inflightBytesMax: 2 * entryBytes });
    let sent: RaftMessage[] = [];
    for (let i = 0; i < 5; i++) {
      node.raw.propose(payload(100));
      sent = sent.concat(appsTo(node.flush(), '2'));
    }
    expect(sent).toHaveLength(2);
    expect(node.raw.status().progress.get('2')).toMatchObject({ inflightMessages: 2, inflightBytes: 2 * entryBytes });
  });

  it('in probe state sends one append and waits for its answer or the next heartbeat response', () => {
    const node = new NodeHarness();
    node.becomeLeader();
    // Follower 2 has not answered the first append: it is still being probed.
    for (let i = 0; i < 3; i++) node.raw.propose(payload(5));
    expect(appsTo(node.flush(), '2')).toEqual([]);
    expect(node.raw.status().progress.get('2')).toMatchObject({ state: 'probe' });
    const resumed = appsTo(node.step({ type: MessageType.HeartbeatResp, from: '2', term: 1 }), '2');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]);
  });

  it('refuses proposals once uncommitted payload would exceed uncommittedBytesMax, and accepts again after commit', () => {
    const node = replicatingLeader({ uncommittedBytesMax: 100 });
    node.raw.propose(payload(60));
    node.flush();
    expect(() => node.raw.propose(payload(60))).toThrow(expect.objectContaining({ reason: 'uncommittedBytesMax' }));
    expect(() => node.raw.propose(payload(60))).toThrow(ProposalDroppedError);
    node.step({ type: MessageType.AppResp, from: '2', term: 1, index: 2 });
    expect(node.raw.status().commit).toBe(2);
    expect(() => node.raw.propose(payload(60))).not.toThrow();
  });

  it('lets a single entry larger than uncommittedBytesMax through when nothing is uncommitted', () => {
    const node = replicatingLeader({ uncommittedBytesMax: 10 });
    expect(() => node.raw.propose(payload(50))).not.toThrow();
    expect(() => node.raw.propose(payload(1))).toThrow(ProposalDroppedError);
  });

  it('goes back to probing a follower the runtime reports unreachable', () => {
    const node = replicatingLeader({});
    node.raw.reportUnreachable('2');
    expect(node.raw.status().progress.get('2')?.state).toBe('probe');
  });
});
