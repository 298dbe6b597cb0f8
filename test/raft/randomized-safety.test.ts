import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { ConfChangeInvalidError, ProposalDroppedError } from '../../src/raft/errors.js';
import type { RaftFaults } from '../../src/raft/raft-config.js';
import type { NodeId } from '../../src/raft/types.js';
import { RaftNetwork } from './support/raft-network.js';

/**
 * A small randomized check of the core's safety, kept here so a core change is caught by the
 * core's own tests: random ticks, proposals, message loss and reordering, partitions, restarts,
 * compaction, leadership transfers and membership changes, with Raft's safety properties checked after every step
 * and liveness after healing. The deterministic simulator (test/sim) does this at scale.
 */
const ids = ['1', '2', '3', '4', '5'];

/** Throws on the first violated property (plain checks: expect() is too slow to call per step). */
function checkSafety(net: RaftNetwork, leaderOfTerm: Map<number, NodeId>): void {
  // Election safety: at most one leader per term, ever.
  for (const id of net.leaders()) {
    const term = net.node(id).raw.status().term;
    const known = leaderOfTerm.get(term);
    if (known !== undefined && known !== id)
      throw new Error(`election safety: two leaders in term ${term}: ${known} and ${id}`);
    leaderOfTerm.set(term, id);
  }
  // State machine safety: every node applied a prefix of the longest applied sequence.
  const applied = ids.map((id) => net.node(id).applied);
  const longest = applied.reduce((a, b) => (b.length > a.length ? b : a));
  for (const [n, sequence] of applied.entries()) {
    for (let i = 0; i < sequence.length; i++) {
      if (sequence[i] !== longest[i])
        throw new Error(
          `state machine safety: node ${ids[n]} applied ${sequence[i]} at position ${i}, another node ${longest[i]}`,
        );
    }
  }
  // Log matching: if two logs hold an entry with the same index and term, they agree on every
  // entry before it (as far as both still hold entries).
  const logs = ids.map((id) => net.logOf(id));
  for (let a = 0; a < logs.length; a++) {
    for (let b = a + 1; b < logs.length; b++) checkLogMatching(logs[a]!, logs[b]!, `${ids[a]} and ${ids[b]}`);
  }
}

function checkLogMatching(a: string[], b: string[], who: string): void {
  const byIndex = (log: string[]): Map<number, string> => new Map(log.map((te) => [Number(te.split('/')[1]), te]));
  const x = byIndex(a);
  const y = byIndex(b);
  let isMatched = false;
  const top = Math.min(
    a.length === 0 ? 0 : Number(a[a.length - 1]!.split('/')[1]),
    b.length === 0 ? 0 : Number(b[b.length - 1]!.split('/')[1]),
  );
  for (let i = top; i >= 1; i--) {
    const p = x.get(i);
    const q = y.get(i);
    if (p === undefined || q === undefined) break;
    if (isMatched && p !== q)
      throw new Error(`log matching: logs of ${who} agree above ${i} but differ at ${i}: ${p} vs ${q}`);
    if (p === q) isMatched = true;
  }
}

function runSeed(seed: number, steps: number, faults: RaftFaults = {}): RaftNetwork {
  const prng = new SeededPrng(seed);
  const net = new RaftNetwork({ voters: ids, seed, electionTimeoutTicks: 5, faults });
  const leaderOfTerm = new Map<number, NodeId>();
  let proposed = 0;
  for (let step = 0; step < steps; step++) {
    const roll = prng.intBelow(100);
    if (roll < 40) {
      for (const id of ids) net.node(id).raw.tick();
    } else if (roll < 60) {
      const [leader] = net.leaders();
      if (leader !== undefined) {
        try {
          net.node(leader).raw.propose(new TextEncoder().encode(`v${seed}.${proposed++}`));
        } catch (err) {
          if (!(err instanceof ProposalDroppedError)) throw err;
        }
      }
    } else if (roll < 85) {
      net.processReadies();
      // Deliver a random part of what is in flight, drop a little, keep the rest for later.
      net.drop(() => prng.intBelow(100) < 5);
      net.deliver(() => prng.intBelow(100) < 70);
    } else if (roll < 90) {
      const cut = ids.filter(() => prng.intBelow(2) === 0);
      net.heal();
      if (cut.length > 0 && cut.length < ids.length)
        net.partition(
          cut,
          ids.filter((id) => !cut.includes(id)),
        );
    } else if (roll < 93) {
      net.heal();
    } else if (roll < 95) {
      net.processReadies();
      net.restart(ids[prng.intBelow(ids.length)]!);
    } else if (roll < 97) {
      net.processReadies();
      const node = net.node(ids[prng.intBelow(ids.length)]!);
      if (node.appliedIndex > node.storage.snapshot().meta.index) net.compact(node.id, node.appliedIndex);
    } else if (roll < 98) {
      const [leader] = net.leaders();
      if (leader !== undefined) net.node(leader).raw.transferLeader(ids[prng.intBelow(ids.length)]!);
    } else {
      changeMembership(net, ids[prng.intBelow(ids.length)]!);
    }
    net.processReadies();
    checkSafety(net, leaderOfTerm);
  }
  // Liveness: once healed, one leader emerges and every node converges.
  net.heal();
  for (let round = 0; round < 60; round++) {
    for (const id of ids) net.node(id).raw.tick();
    net.stabilize();
    checkSafety(net, leaderOfTerm);
  }
  return net;
}

/** Removes a voter (keeping at least three), adds a non-member back as learner, or promotes a learner. */
function changeMembership(net: RaftNetwork, id: NodeId): void {
  const [leader] = net.leaders();
  if (leader === undefined) return;
  const { voters, learners } = net.node(leader).raw.status().confState;
  const kind = voters.includes(id) ? 'removeNode' : learners.includes(id) ? 'addVoter' : 'addLearner';
  if (kind === 'removeNode' && voters.length <= 3) return;
  try {
    net.node(leader).raw.proposeConfChange({ kind, nodeId: id, context: new Uint8Array(0) });
  } catch (err) {
    if (!(err instanceof ProposalDroppedError || err instanceof ConfChangeInvalidError)) throw err;
  }
}

const seedCount = Number(process.env.RAFT_SAFETY_SEEDS ?? 30);

describe('randomized safety of the core', () => {
  it('keeps election safety, log matching and state machine safety under loss, partitions, restarts, compaction and membership changes', () => {
    for (let seed = 1; seed <= seedCount; seed++) {
      const net = runSeed(seed, 300);
      const leaders = net.leaders();
      expect(leaders, `seed ${seed}: one leader after healing`).toHaveLength(1);
      const leader = net.node(leaders[0]!);
      const { voters, learners } = leader.raw.status().confState;
      for (const id of [...voters, ...learners])
        expect(net.node(id).applied, `seed ${seed}: node ${id} converged`).toEqual(leader.applied);
    }
  });

  const faults: RaftFaults[] = [{ skipLogUpToDateCheck: true }, { grantVoteTwicePerTerm: true }];
  for (const fault of faults) {
    it(`notices a core with the deliberate fault ${Object.keys(fault).join()}`, () => {
      let caught = '';
      for (let seed = 1; seed <= 200 && caught === ''; seed++) {
        try {
          runSeed(seed, 300, fault);
        } catch (err) {
          caught = String(err);
        }
      }
      expect(caught).toMatch(/election safety|state machine safety|log matching|assert/i);
    });
  }
});
