import { describe, expect, it } from 'vitest';
import { parseMetrics } from '../../bench/soak/soak-cluster.js';
import { leveling, minuteLatencies, soakVerdict, type SoakSample } from '../../bench/soak/soak-report.js';

function sample(tSeconds: number, liveRows: number, stateBytes: number): SoakSample {
  return {
    tSeconds,
    liveRows,
    stateBytes,
    stateBytesMax: stateBytes,
    deadVersions: 0,
    tombstonedRows: 0,
    rowsByFamily: {},
    gcPasses: 0,
    compactions: 0,
    sent: 0,
    received: 0,
    errors: 0,
    receiveP50Ms: 1,
    receiveP99Ms: 2,
    loadAverage: 1,
    nodeCpuMsPerMessage: 0.1,
  };
}

describe('soak verdict', () => {
  it('calls a series that keeps growing not level, and one that flattened level', () => {
    expect(leveling([1, 2, 3, 4, 5, 6, 7, 8]).isLevel).toBe(false);
    expect(leveling([1, 5, 9, 10, 10, 10, 10, 10]).isLevel).toBe(true);
  });

  it('compares the last complete minute of receive latency with the first', () => {
    const latencies = [
      ...Array.from({ length: 100 }, (_, i) => ({ tSeconds: 10 + i * 0.1, ms: 2 })),
      ...Array.from({ length: 100 }, (_, i) => ({ tSeconds: 70 + i * 0.1, ms: 4 })),
      // A partial third minute is left out.
      { tSeconds: 121, ms: 100 },
    ];
    expect(minuteLatencies(latencies).map((m) => m.minute)).toEqual([1, 2, 3]);
    const samples = [sample(60, 10, 10), sample(120, 10, 10)];
    const verdict = soakVerdict(samples, latencies, 121);
    expect(verdict.p50Ratio).toBe(2);
    expect(verdict.isLatencyWithinBound).toBe(false);
    const steady = soakVerdict(
      samples,
      latencies.map((l) => ({ ...l, ms: 3 })),
      121,
    );
    expect(steady.isLatencyWithinBound).toBe(true);
  });

  it('reads live keys, dead versions and tombstoned rows from /metrics text', () => {
    const text = [
      'raftq_state_rows{family="data"} 5',
      'raftq_state_rows{family="vis"} 7',
      'raftq_state_versions{kind="dead"} 11',
      'raftq_reaper_tombstoned_rows 3',
      'raftq_state_gc_passes_total 2',
      'raftq_state_gc_step_seconds_sum 0.25',
      'raftq_state_gc_step_seconds_count 40',
      'raftq_state_engine_reads_total 900',
      'raftq_state_engine_reads_untaught_total 12',
      'raftq_state_engine_read_iterators_total 95',
    ].join('\n');
    expect(parseMetrics(text)).toMatchObject({
      liveRows: 12,
      deadVersions: 11,
      tombstonedRows: 3,
      gcPasses: 2,
      gcSteps: 40,
      gcStepSeconds: 0.25,
      engineReads: 900,
      engineReadsUntaught: 12,
      engineReadIterators: 95,
    });
  });
});
