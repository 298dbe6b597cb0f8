import { describe, expect, it } from 'vitest';
import { checkCluster, type ClusterFacts } from '../../jepsen-like/checkers/cluster-checker.js';
import { fatalLogLines } from '../../jepsen-like/runner/node-log-scan.js';
import { awaitReplicaConvergence } from '../../jepsen-like/runner/replica-convergence.js';
import type { NodeStatus } from '../../jepsen-like/runner/node-admin.js';

const healthy: ClusterFacts = {
  unexpectedExits: [],
  nemesisErrors: [],
  notReadyAfterHeal: [],
  drains: [
    { workload: 'queue', isEmpty: true },
    { workload: 'fifo', isEmpty: true },
  ],
  replicas: {
    isConverged: true,
    states: [
      { node: 'n1', appliedIndex: 120, stateDigest: 'abc' },
      { node: 'n2', appliedIndex: 120, stateDigest: 'abc' },
      { node: 'n3', appliedIndex: 120, stateDigest: 'abc' },
    ],
    silent: [],
  },
  fatalLogLines: [],
};

describe('cluster checker', () => {
  it('passes a run whose nodes all stayed up as asked, drained, and agree on one state', () => {
    const result = checkCluster(healthy);
    expect(result.valid).toBe(true);
    expect(result.problems).toEqual([]);
  });

  it('fails a run in which a node exited by itself, even though the heal restarted it', () => {
    const result = checkCluster({ ...healthy, unexpectedExits: ['n2 exited by itself (code 1, signal null)'] });
    expect(result.valid).toBe(false);
    expect(result.problems[0]).toContain('node died unasked: n2 exited by itself');
  });

  it('fails a run in which a nemesis step failed', () => {
    const result = checkCluster({
      ...healthy,
      nemesisErrors: ['fault #3 remove and re-add one heal failed: adding n2 back failed'],
    });
    expect(result.valid).toBe(false);
    expect(result.problems[0]).toContain('nemesis step failed');
  });

  it('fails a run whose queue did not drain', () => {
    const result = checkCluster({
      ...healthy,
      drains: [
        { workload: 'queue', isEmpty: true },
        { workload: 'fifo', isEmpty: false },
      ],
    });
    expect(result.valid).toBe(false);
    expect(result.problems).toEqual(['the fifo queue did not drain: it never stayed empty before the drain deadline']);
  });

  it('fails a run whose replicas differ in state at one applied index', () => {
    const states = healthy.replicas.states.map((s) => (s.node === 'n3' ? { ...s, stateDigest: 'abd' } : s));
    const result = checkCluster({ ...healthy, replicas: { ...healthy.replicas, states } });
    expect(result.valid).toBe(false);
    expect(result.problems[0]).toContain("the replicas' states differ at one applied index");
  });

  it('fails a run whose replicas never came to one applied index, or one of which did not answer', () => {
    const states = healthy.replicas.states.map((s) => (s.node === 'n3' ? { ...s, appliedIndex: 90 } : s));
    expect(checkCluster({ ...healthy, replicas: { isConverged: false, states, silent: [] } }).valid).toBe(false);
    expect(
      checkCluster({ ...healthy, replicas: { isConverged: false, states: states.slice(0, 2), silent: ['n3'] } })
        .problems,
    ).toContain('no final status from n3');
  });

  it('fails a run in which a node logged a fatal line, or was not ready after the heal', () => {
    expect(
      checkCluster({ ...healthy, fatalLogLines: ['n1: AssertionFailedError: applied index must grow'] }).valid,
    ).toBe(false);
    expect(checkCluster({ ...healthy, notReadyAfterHeal: ['n2'] }).valid).toBe(false);
  });
});

describe('node log scan', () => {
  it('finds pino fatal records and uncaught exceptions, and nothing in an ordinary log', () => {
    const ordinary = [
      '{"level":30,"time":1,"node":"n1","msg":"raftq node serving"}',
      '{"level":50,"time":2,"node":"n1","msg":"peer unreachable"}',
      '{"level":40,"time":3,"node":"n1","msg":"artificial cluster clock offset set"}',
      '(node:123) Warning: something deprecated',
    ].join('\n');
    expect(fatalLogLines(ordinary)).toEqual([]);
    const crashed = [
      ordinary,
      '{"level":60,"time":4,"node":"n1","msg":"fatal error; exiting"}',
      'file:///x/dist/src/cluster/state-apply.js:10',
      '        throw new AssertionFailedError(message);',
      '              ^',
      '',
      'AssertionFailedError: applied index must grow: 5 after 7',
      '    at assert (file:///x/dist/src/base/assert.js:9:15)',
      'TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string',
      'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
    ].join('\n');
    const found = fatalLogLines(crashed);
    expect(found).toHaveLength(4);
    expect(found[0]).toContain('"level":60');
    expect(found[1]).toBe('AssertionFailedError: applied index must grow: 5 after 7');
  });
});

describe('replica convergence', () => {
  const status = (appliedIndex: number, stateDigest: string): NodeStatus => ({
    id: '',
    role: 'follower',
    term: 1,
    leader: null,
    commitIndex: appliedIndex,
    appliedIndex,
    stateDigest,
  });

  it('polls until one poll finds every node at the same applied index', async () => {
    let polls = 0;
    const answers: Record<string, number[]> = { n1: [10, 11, 12], n2: [9, 11, 12], n3: [8, 10, 12] };
    const result = await awaitReplicaConvergence(
      ['n1', 'n2', 'n3'],
      async (id) => {
        const list = answers[id] ?? [];
        const index = list[Math.min(polls, list.length - 1)] ?? 0;
        if (id === 'n3') polls++;
        return status(index, `d${index}`);
      },
      { boundMs: 60_000, pollMs: 1, nowMs: () => performance.now() },
    );
    expect(result.isConverged).toBe(true);
    expect(result.states.map((s) => s.appliedIndex)).toEqual([12, 12, 12]);
  });

  it('gives up at the bound, saying which nodes were silent', async () => {
    let now = 0;
    const result = await awaitReplicaConvergence(
      ['n1', 'n2'],
      async (id) => {
        now += 1_000;
        return id === 'n1' ? status(5, 'a') : undefined;
      },
      { boundMs: 3_000, pollMs: 1, nowMs: () => now },
    );
    expect(result).toMatchObject({ isConverged: false, silent: ['n2'] });
  });
});
