import { describe, expect, it } from 'vitest';
import { ProposalDroppedError } from '../../src/raft/errors.js';
import type { NodeId } from '../../src/raft/types.js';
import { expectGoldenTranscript } from './support/golden-transcript.js';
import { RaftNetwork } from './support/raft-network.js';

/**
 * Scripted scenarios of the hard cases, on a small network of real RawNodes. Each prints its
 * transcript when it fails (RAFT_TRANSCRIPT=1 prints it always), and ends by comparing the
 * transcript with its golden copy in test/raft/testdata/ (support/golden-transcript.ts): a
 * change of Raft behaviour fails here with a diff until `npm run test:golden-update` rewrites
 * the copies, whose diff is then reviewed with the change.
 */

/** Ticks the given nodes (all by default) and settles the network, `rounds` times. */
function run(net: RaftNetwork, rounds: number, ids?: NodeId[]): void {
  const tickIds = ids ?? [...net.nodes.keys()];
  for (let i = 0; i < rounds; i++) {
    net.log(`> tick ${tickIds.join(' ')}`);
    for (const id of tickIds) net.node(id).raw.tick();
    net.stabilize();
  }
}

function elect(net: RaftNetwork, id: NodeId): void {
  net.campaign(id);
  net.stabilize();
  expect(net.leaders()).toEqual([id]);
}

function expectSameLogs(net: RaftNetwork, ids: NodeId[]): void {
  const [first, ...rest] = ids;
  for (const id of rest) expect(net.logOf(id), `log of ${id}`).toEqual(net.logOf(first!));
}

describe('scenario: leader isolated, then healed', () => {
  it('the majority elects a new leader, the old one steps down, and its uncommitted entry is replaced', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.propose('1', 'a');
    net.stabilize();
    net.isolate('1');
    net.propose('1', 'lost');
    net.stabilize();
    run(net, 40);
    const [newLeader] = net.leaders();
    expect(['2', '3']).toContain(newLeader);
    // CheckQuorum: the isolated leader noticed it lost its majority.
    expect(net.node('1').raw.status().role).not.toBe('leader');
    net.propose(newLeader!, 'b');
    net.stabilize();
    net.heal();
    run(net, 20);
    expect(net.leaders()).toEqual([newLeader]);
    for (const id of ['1', '2', '3']) expect(net.node(id).applied, `applied on ${id}`).toEqual(['a', 'b']);
    expectSameLogs(net, ['1', '2', '3']);
    expectGoldenTranscript('leader-isolated-then-healed', net.transcript);
  });
});

describe('scenario: a stale leader', () => {
  it('has its appends rejected and steps down when it hears the newer term', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.isolate('1');
    // Only 2 and 3 see time pass: 1 still believes it leads.
    for (let i = 0; i < 40 && net.leaders().length < 2; i++) run(net, 1, ['2', '3']);
    const newLeader = net.leaders().find((id) => id !== '1');
    expect(newLeader).toBeDefined();
    expect(net.node('1').raw.status()).toMatchObject({ role: 'leader', term: 1 });
    net.propose('1', 'stale');
    net.heal();
    net.processReadies();
    net.deliver((m) => m.from === '1');
    net.processReadies();
    // The followers answer with their term, which deposes the stale leader.
    net.deliver((m) => m.to === '1');
    expect(net.node('1').raw.status()).toMatchObject({ role: 'follower', term: 2 });
    net.stabilize();
    run(net, 5);
    for (const id of ['2', '3']) expect(net.node(id).applied).not.toContain('stale');
    expectSameLogs(net, ['1', '2', '3']);
    expect(net.transcript.some((line) => /^[23]->1 AppResp term=2/.test(line))).toBe(true);
    expectGoldenTranscript('stale-leader', net.transcript);
  });
});

describe('scenario: a follower with a long divergent log', () => {
  it('is brought in line in a few round trips thanks to rejection hints', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.propose('1', 'a');
    net.stabilize();
    // 1 fills its log with 50 entries of term 1 that nobody else sees.
    net.isolate('1');
    for (let i = 0; i < 50; i++) net.propose('1', `old${i}`);
    net.stabilize();
    for (let i = 0; i < 40 && net.leaders().every((id) => id === '1'); i++) run(net, 1, ['2', '3']);
    const second = net.leaders().find((id) => id !== '1')!;
    const third = second === '2' ? '3' : '2';
    for (let i = 0; i < 30; i++) net.propose(second, `new${i}`);
    net.stabilize();
    // Then the other survivor leads with 1 on its side: its log is longer than 1's in the
    // divergent region, so it starts probing 1 far past the point where the logs agree.
    net.heal();
    net.isolate(second);
    for (let i = 0; i < 60 && !net.leaders().includes(third); i++) run(net, 1, [third, '1']);
    expect(net.leaders()).toContain(third);
    net.heal();
    run(net, 10);
    expectSameLogs(net, ['1', '2', '3']);
    expect(net.node('1').applied).toEqual(['a', ...Array.from({ length: 30 }, (_, i) => `new${i}`)]);
    // One rejection names term 1; the leader skips the whole divergent run at once.
    const rejections = net.transcript.filter(
      (line) => line.startsWith(`1->${third} AppResp`) && line.includes('reject'),
    );
    expect(rejections.length).toBeGreaterThan(0);
    expect(rejections.length).toBeLessThanOrEqual(2);
    expectGoldenTranscript('long-divergent-log', net.transcript);
  });
});

describe('scenario: a node rejoining after a partition', () => {
  it('with PreVote, does not bump terms or depose the leader', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.isolate('3');
    run(net, 100);
    expect(net.node('3').raw.status().term).toBe(1);
    net.propose('1', 'a');
    net.heal();
    run(net, 30);
    expect(net.leaders()).toEqual(['1']);
    for (const id of ['1', '2', '3']) expect(net.node(id).raw.status().term).toBe(1);
    expect(net.node('3').applied).toEqual(['a']);
    expectGoldenTranscript('rejoin-with-prevote', net.transcript);
  });

  it('without PreVote, inflates its term while away and forces an election on its return', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'], preVote: false, checkQuorum: false });
    elect(net, '1');
    net.isolate('3');
    run(net, 100);
    expect(net.node('3').raw.status().term).toBeGreaterThan(3);
    net.heal();
    run(net, 60);
    // The cluster moved to 3's inflated term or beyond: the healthy leader was disrupted.
    expect(net.node('1').raw.status().term).toBeGreaterThan(3);
    expect(net.leaders()).toHaveLength(1);
    expectGoldenTranscript('rejoin-without-prevote', net.transcript);
  });
});

describe('scenario: a learner', () => {
  it('receives the log but never votes for or stands in an election', () => {
    const net = new RaftNetwork({ voters: ['1', '2'], learners: ['3'] });
    elect(net, '1');
    net.propose('1', 'a');
    net.stabilize();
    expect(net.node('3').applied).toEqual(['a']);
    net.isolate('2');
    run(net, 100);
    // Without voter 2 there is no majority of voters, whatever the learner answers.
    expect(net.leaders()).toEqual([]);
    expect(net.node('3').raw.status().term).toBe(1);
    expect(net.transcript.some((line) => /^3->\S+ (Pre)?Vote /.test(line))).toBe(false);
    expectGoldenTranscript('learner', net.transcript);
  });
});

describe('scenario: leadership transfer to a lagging node', () => {
  it('catches the target up first, refuses proposals meanwhile, and ends with the target leading', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.cutOneWay('1', '3');
    for (let i = 0; i < 5; i++) net.propose('1', `e${i}`);
    net.stabilize();
    expect(net.node('3').applied).toEqual([]);
    net.heal();
    net.transferLeader('1', '3');
    expect(() => net.propose('1', 'during')).toThrow(ProposalDroppedError);
    net.stabilize();
    expect(net.leaders()).toEqual(['3']);
    expect(net.node('3').raw.status().term).toBe(2);
    net.propose('3', 'after');
    net.stabilize();
    for (const id of ['1', '2', '3']) expect(net.node(id).applied).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'after']);
    expectGoldenTranscript('transfer-to-lagging-node', net.transcript);
  });

  it('is forwarded to the leader when asked of a follower', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.transferLeader('2', '3');
    net.stabilize();
    expect(net.leaders()).toEqual(['3']);
    expectGoldenTranscript('transfer-asked-of-follower', net.transcript);
  });
});

describe('scenario: removal of the leader itself', () => {
  it('the leader commits its removal, steps down, hands over, and never campaigns again', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.proposeConfChange('1', { kind: 'removeNode', nodeId: '1' });
    net.stabilize();
    const [newLeader] = net.leaders();
    expect(['2', '3']).toContain(newLeader);
    expect(net.node(newLeader!).raw.status().confState).toEqual({ voters: ['2', '3'], learners: [] });
    const termOfOne = net.node('1').raw.status().term;
    net.propose(newLeader!, 'after');
    run(net, 50);
    expect(net.node('1').raw.status()).toMatchObject({ role: 'follower', term: termOfOne });
    for (const id of ['2', '3']) expect(net.node(id).applied).toEqual(['after']);
    expect(net.leaders()).toEqual([newLeader]);
    expectGoldenTranscript('remove-leader', net.transcript);
  });
});

describe('scenario: membership growth', () => {
  it('a new node joins as a learner, catches up, is promoted, and then counts for commit', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    for (let i = 0; i < 3; i++) net.propose('1', `e${i}`);
    net.stabilize();
    net.addNode('4');
    net.proposeConfChange('1', { kind: 'addLearner', nodeId: '4' });
    net.stabilize();
    run(net, 2);
    expect(net.node('4').applied).toEqual(['e0', 'e1', 'e2']);
    expect(net.node('1').raw.status().progress.get('4')).toMatchObject({ isLearner: true, state: 'replicate' });
    net.proposeConfChange('1', { kind: 'addVoter', nodeId: '4' });
    net.stabilize();
    expect(net.node('4').raw.status().confState.voters).toEqual(['1', '2', '3', '4']);
    // With four voters, a majority is three: 1 and 4 alone cannot commit.
    net.partition(['1', '4'], ['2', '3']);
    net.propose('1', 'needs-three');
    net.stabilize();
    expect(net.node('1').applied).not.toContain('needs-three');
    net.heal();
    run(net, 3);
    expect(net.node('4').applied).toContain('needs-three');
    expectGoldenTranscript('membership-growth', net.transcript);
  });
});

describe('scenario: ReadIndex', () => {
  it('is answered on the leader and on a follower with an index covering every committed write', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.propose('1', 'a');
    net.stabilize();
    const commit = net.node('1').raw.status().commit;
    net.readIndex('1', 'leader-read');
    net.readIndex('2', 'follower-read');
    net.stabilize();
    expect(net.node('1').readStates.map((rs) => rs.index)).toEqual([commit]);
    expect(net.node('2').readStates.map((rs) => rs.index)).toEqual([commit]);
    expectGoldenTranscript('read-index', net.transcript);
  });

  it('is never answered by a leader cut off from its majority', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.isolate('1');
    net.readIndex('1', 'lonely');
    run(net, 40);
    expect(net.node('1').readStates).toEqual([]);
    expectGoldenTranscript('read-index-cut-off-leader', net.transcript);
  });
});

describe('scenario: a follower behind a compacted log', () => {
  it('receives the snapshot, installs it, and then follows the log', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.isolate('3');
    for (let i = 0; i < 20; i++) net.propose('1', `e${i}`);
    net.stabilize();
    const applied = net.node('1').appliedIndex;
    net.compact('1', applied);
    net.heal();
    run(net, 3);
    expect(net.transcript.some((line) => line.startsWith(`1->3 Snap term=1 snapshot=1/${applied}`))).toBe(true);
    expect(net.node('3').storage.snapshot().meta.index).toBe(applied);
    net.propose('1', 'after');
    net.stabilize();
    expect(net.node('3').applied).toEqual([...Array.from({ length: 20 }, (_, i) => `e${i}`), 'after']);
    expectGoldenTranscript('snapshot-catch-up', net.transcript);
  });
});

describe('scenario: restart from durable state', () => {
  it('a restarted node keeps its term, vote and log and applies the committed entries again', () => {
    const net = new RaftNetwork({ voters: ['1', '2', '3'] });
    elect(net, '1');
    net.propose('1', 'a');
    net.propose('1', 'b');
    net.stabilize();
    const before = net.node('2').raw.status();
    net.restart('2');
    const after = net.node('2').raw.status();
    expect(after).toMatchObject({
      term: before.term,
      vote: before.vote,
      commit: before.commit,
      lastIndex: before.lastIndex,
    });
    net.stabilize();
    expect(net.node('2').applied).toEqual(['a', 'b']);
    net.restart('1');
    run(net, 40);
    expect(net.leaders()).toHaveLength(1);
    net.propose(net.leaders()[0]!, 'c');
    net.stabilize();
    for (const id of ['1', '2', '3']) expect(net.node(id).applied).toEqual(['a', 'b', 'c']);
    expectGoldenTranscript('restart-from-durable-state', net.transcript);
  });
});
