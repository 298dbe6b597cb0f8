import { describe, expect, it } from 'vitest';
import { SeededPrng } from '../../src/base/prng.js';
import { simConfigForSeed, type SimConfig } from './sim-config.js';
import { SimNode, type SimNodeObserver } from './sim-node.js';
import { decodeProposalValue, encodeProposalValue } from './sim-state-machine.js';

const quietObserver: SimNodeObserver = {
  beforePersist: () => {},
  afterPersist: () => {},
  send: () => {},
  applied: () => {},
  restored: () => {},
  confChangeApplied: () => {},
  readState: () => {},
};

function singleVoter(overrides: Partial<SimConfig> = {}): SimNode {
  const config = simConfigForSeed(1, { snapshotThresholdEntries: 1_000, ...overrides });
  const node = new SimNode('1', { voters: ['1'], learners: [] }, config, quietObserver);
  node.start(new SeededPrng(1));
  node.core.campaign();
  settle(node);
  return node;
}

function settle(node: SimNode): void {
  for (let i = 0; i < 20 && node.hasReady(); i++) node.handleReady();
}

function durableValues(node: SimNode): string[] {
  const storage = node.durable.storage;
  const first = storage.firstIndex();
  const last = storage.lastIndex();
  if (last < first) return [];
  return storage
    .entries(first, last + 1, Number.MAX_SAFE_INTEGER)
    .filter((e) => e.data.length > 0)
    .map((e) => decodeProposalValue(e.data));
}

describe('the simulated runtime', () => {
  it('a crash loses a proposal that no Ready has persisted yet', () => {
    const node = singleVoter();
    node.core.propose(encodeProposalValue('v1'));
    node.crash();
    node.start(new SeededPrng(2));
    expect(durableValues(node)).toEqual([]);
  });

  it('an entry persisted before a crash survives it and is applied after the restart', () => {
    const node = singleVoter();
    node.core.propose(encodeProposalValue('v1'));
    const summary = node.handleReady({ crashAfterSteps: 1 });
    expect(summary.stepsDone).toEqual(['persist']);
    expect(node.isRunning).toBe(false);
    node.start(new SeededPrng(2));
    expect(durableValues(node)).toEqual(['v1']);
    node.core.campaign();
    settle(node);
    const sm = node.stateMachine;
    const appliedValues = Array.from({ length: sm.appliedIndex }, (_, i) => sm.valueAt(i + 1)).filter(
      (v) => v !== undefined,
    );
    expect(appliedValues).toEqual(['v1']);
  });

  it('with sendBeforePersist the runtime sends first, so a crash after one step has persisted nothing', () => {
    const node = singleVoter({ faults: { sendBeforePersist: true } });
    node.core.propose(encodeProposalValue('v1'));
    const summary = node.handleReady({ crashAfterSteps: 1 });
    expect(summary.stepsDone).toEqual(['send']);
    node.start(new SeededPrng(2));
    expect(durableValues(node)).toEqual([]);
  });

  it('a volatile state machine restarts from the snapshot, a durable one keeps its applied index', () => {
    for (const isStateMachineDurable of [false, true]) {
      const node = singleVoter({ isStateMachineDurable, snapshotThresholdEntries: 3 });
      for (const value of ['v1', 'v2', 'v3', 'v4']) {
        node.core.propose(encodeProposalValue(value));
        settle(node);
      }
      const appliedBefore = node.stateMachine.appliedIndex;
      const snapshotIndex = node.durable.snapshotIndex;
      expect(snapshotIndex).toBeGreaterThan(0);
      expect(appliedBefore).toBeGreaterThan(snapshotIndex);
      node.crash();
      node.start(new SeededPrng(3));
      expect(node.stateMachine.appliedIndex).toBe(isStateMachineDurable ? appliedBefore : snapshotIndex);
    }
  });
});
