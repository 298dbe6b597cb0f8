import { describe, expect, it } from 'vitest';
import { faultWindows, largestClockSpreadMs, type NemesisEvent } from '../../jepsen-like/nemesis/nemesis-event.js';
import { renderReportHtml } from '../../jepsen-like/report/report-html.js';
import { checkCluster } from '../../jepsen-like/checkers/cluster-checker.js';
import { combineValidity, runValidity, type RunResults } from '../../jepsen-like/report/run-results.js';
import { HistoryBuilder } from './history-builder.js';

const events: NemesisEvent[] = [
  {
    timeMs: 1_000,
    faultId: 0,
    phase: 'start',
    family: 'kill',
    description: 'kill -9 leader',
    details: { nodes: ['n1'] },
  },
  { timeMs: 3_000, faultId: 0, phase: 'heal', family: 'kill', description: 'kill -9 leader' },
  {
    timeMs: 4_000,
    faultId: 1,
    phase: 'start',
    family: 'clock',
    description: 'clock one -2500 ms',
    details: { nodes: ['n2'], offsetMs: -2_500 },
  },
  { timeMs: 6_000, faultId: 1, phase: 'heal', family: 'clock', description: 'clock one -2500 ms' },
  { timeMs: 7_000, faultId: 2, phase: 'start', family: 'partition', description: 'partition halves' },
];

function results(valid: RunResults['valid']): RunResults {
  return {
    valid,
    run: {
      name: 'r',
      seed: 5,
      nodes: 3,
      timeSeconds: 8,
      nemesis: ['kill', 'clock', 'partition'],
      workloads: ['queue'],
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 9_000,
    },
    workloads: {
      queue: { valid, checkers: { 'total-queue': { valid } }, operations: { send: { ok: 2, fail: 0, info: 1 } } },
    },
    cluster: checkCluster({
      unexpectedExits: ['n3 exited by itself (code 1, signal null)'],
      nemesisErrors: [],
      notReadyAfterHeal: [],
      drains: [{ workload: 'queue', isEmpty: true }],
      replicas: { isConverged: true, states: [{ node: 'n1', appliedIndex: 9, stateDigest: 'x' }], silent: [] },
      fatalLogLines: [],
    }),
    nemesis: {
      faultsInjected: 3,
      byFamily: { kill: 1, clock: 1, partition: 1 },
      skipped: [{ family: 'corrupt', reason: 'no repair' }],
      errors: [],
    },
    runErrors: [],
  };
}

describe('fault windows and report', () => {
  it('pairs starts with heals and leaves an unhealed fault open to the end', () => {
    const windows = faultWindows(events);
    expect(windows.map((w) => [w.faultId, w.fromMs, w.toMs])).toEqual([
      [0, 1_000, 3_000],
      [1, 4_000, 6_000],
      [2, 7_000, Number.POSITIVE_INFINITY],
    ]);
    expect(largestClockSpreadMs(events)).toBe(2_500);
  });

  it('counts a clock behind and a later clock ahead together: one message can be claimed under each', () => {
    const behindThenAhead: NemesisEvent[] = [
      {
        timeMs: 1_000,
        faultId: 0,
        phase: 'start',
        family: 'clock',
        description: 'clock one -1184 ms',
        details: { nodes: ['n3'], offsetMs: -1_184 },
      },
      { timeMs: 2_000, faultId: 0, phase: 'heal', family: 'clock', description: 'clock one -1184 ms' },
      {
        timeMs: 3_000,
        faultId: 1,
        phase: 'start',
        family: 'clock',
        description: 'clock leader +1443 ms',
        details: { nodes: ['n3'], offsetMs: 1_443 },
      },
      { timeMs: 4_000, faultId: 1, phase: 'heal', family: 'clock', description: 'clock leader +1443 ms' },
    ];
    expect(largestClockSpreadMs(behindThenAhead)).toBe(2_627);
  });

  it('shows the verdict, a shaded band per fault, the skipped families and the checker results', () => {
    const pairs = new HistoryBuilder()
      .send(0, 'a', 100, 'ok')
      .send(1, 'b', 1_500, 'info')
      .receive(2, [{ body: 'a' }], 2_000, 2_100)
      .pairs();
    const html = renderReportHtml({ results: results(false), pairs, windows: faultWindows(events), endMs: 9_000 });
    expect(html).toContain('INVALID');
    expect(html).toContain('<title>#0 kill -9 leader</title>');
    expect(html).toContain('<title>#2 partition halves</title>');
    expect(html).toContain('skipped corrupt: no repair');
    expect(html).toContain('node died unasked: n3 exited by itself');
    expect(html).toContain('Latency of receive');
    expect(html).toContain('total-queue');
    expect(html).not.toContain('NaN');
  });

  it('lets false win over unknown, and unknown over true', () => {
    expect(combineValidity([true, 'unknown', false])).toBe(false);
    expect(combineValidity([true, 'unknown'])).toBe('unknown');
    expect(combineValidity([true, true])).toBe(true);
  });

  it('makes a run invalid when the cluster checker is, whatever the workloads say, and unknown when the run broke', () => {
    expect(runValidity([true, true], false, [])).toBe(false);
    expect(runValidity([true], true, [])).toBe(true);
    expect(runValidity([true], true, ['TypeError: boom'])).toBe('unknown');
    expect(runValidity([], true, ['the cluster did not become ready'])).toBe('unknown');
    expect(runValidity([false], true, ['TypeError: boom'])).toBe(false);
  });
});
