import { describe, expect, it } from 'vitest';
import { benchResultProblems, type BenchResult } from '../../bench/report/bench-result.js';
import { computeRatios } from '../../bench/report/ratio-table.js';
import { benchResult, measurement, produce1k } from './fixtures.js';

function wellFormed(): BenchResult {
  const cells = [measurement('raftq-3', produce1k, 6_000), measurement('rabbitmq', produce1k, 4_000)];
  return { ...benchResult(cells), ratios: computeRatios(cells, ['raftq-3']) };
}

/** A deep copy with one change, as JSON would come back from a file. */
function mutated(change: (json: Record<string, any>) => void): unknown {
  const json = JSON.parse(JSON.stringify(wellFormed())) as Record<string, any>;
  change(json);
  return json;
}

describe('the result file shape', () => {
  it('a result as main writes it, round-tripped through JSON, has no problems', () => {
    expect(benchResultProblems(JSON.parse(JSON.stringify(wellFormed())))).toEqual([]);
  });

  it('rejects a result of another schema version', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          j.schemaVersion = 99;
        }),
      ),
    ).toContain('schemaVersion: expected 1');
  });

  it('rejects a cell whose system is not among the systems of the run', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          j.cells[0].system = 'kafka';
        }),
      ),
    ).toContain('cells[0].system: not one of the systems');
  });

  it('rejects negative or missing figures', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          j.cells[1].throughputMsgsPerSecond = -1;
        }),
      ),
    ).toContain('cells[1].throughputMsgsPerSecond: expected a non-negative number');
    expect(
      benchResultProblems(
        mutated((j) => {
          delete j.cells[0].clientCpuSeconds;
        }),
      ),
    ).toContain('cells[0].clientCpuSeconds: expected a non-negative number');
  });

  it('rejects latency percentiles that are out of order', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          j.cells[0].latency.produce.p99Ms = 0.5;
        }),
      ),
    ).toContain('cells[0].latency.produce: percentiles out of order');
  });

  it('requires a reason for every system that did not run', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          delete j.systems[2].reason;
        }),
      ),
    ).toContain('systems[2].reason: a skipped or failed system says why');
  });

  it('rejects a ratio row naming an unknown system or holding a non-number', () => {
    expect(
      benchResultProblems(
        mutated((j) => {
          j.ratios[0].ratio = 'fast';
        }),
      ),
    ).toContain('ratios[0]: expected {cellKey, subject, peer, ratio} of known systems');
  });

  it('rejects what is not an object at all', () => {
    expect(benchResultProblems([])).toEqual(['expected an object']);
    expect(benchResultProblems(null)).toEqual(['expected an object']);
  });
});
