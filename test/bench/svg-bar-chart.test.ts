import { describe, expect, it } from 'vitest';
import { niceAxis, renderBarChart } from '../../bench/report/svg-bar-chart.js';
import { renderWorkloadCharts } from '../../bench/report/workload-charts.js';
import { measurement, produce1k } from './fixtures.js';
import { xmlProblems } from './xml-well-formed.js';

describe('SVG charts', () => {
  it('a chart is well-formed XML, with names that need escaping escaped', () => {
    const svg = renderBarChart({
      title: 'produce <1KiB> & friends',
      yLabel: 'messages / s',
      groups: ['concurrency 1', 'concurrency 16'],
      series: [
        { name: 'raftq "3"', values: [100, 2_000] },
        { name: "o'peer", values: [null, 1_500] },
      ],
    });
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).toContain('produce &lt;1KiB&gt; &amp; friends');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });

  it('the well-formedness check itself rejects broken markup', () => {
    expect(xmlProblems('<svg><rect></svg>')).not.toEqual([]);
    expect(xmlProblems('<svg><text>a & b</text></svg>')).not.toEqual([]);
    expect(xmlProblems('<svg width=10></svg>')).not.toEqual([]);
  });

  it('draws one bar per value that exists, with heights proportional to the values', () => {
    const svg = renderBarChart({
      title: 't',
      yLabel: 'y',
      groups: ['a', 'b'],
      series: [
        { name: 's1', values: [1_000, 500] },
        { name: 's2', values: [null, 250] },
      ],
    });
    const bars = [
      ...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)" fill="#\w+"><title>/g),
    ].map((m) => Number(m[1]));
    expect(bars).toHaveLength(3);
    const [tallest = 0, half = 0, quarter = 0] = bars;
    expect(half / tallest).toBeCloseTo(0.5, 2);
    expect(quarter / tallest).toBeCloseTo(0.25, 2);
  });

  it('picks an axis top of 1, 2 or 5 times a power of ten that covers the largest value', () => {
    expect(niceAxis(9_300)).toEqual({ top: 10_000, step: 2_000 });
    expect(niceAxis(0.7)).toEqual({ top: 0.8, step: 0.2 });
    expect(niceAxis(0)).toEqual({ top: 1, step: 0.2 });
    for (const max of [1, 3, 47, 999, 12_345, 2e6]) expect(niceAxis(max).top).toBeGreaterThanOrEqual(max);
  });

  it('renders one chart per workload, leaving out systems that did not measure it', () => {
    const charts = renderWorkloadCharts(
      [
        measurement('raftq-1', produce1k, 5_000),
        measurement('rabbitmq', produce1k, 4_000),
        measurement('raftq-1', { ...produce1k, concurrency: 1 }, 900),
        measurement('raftq-1', { ...produce1k, workload: 'consume' }, 3_000),
      ],
      ['raftq-1', 'raftq-3', 'rabbitmq'],
    );
    expect(charts.map((c) => c.workloadKey)).toEqual(['produce-1KiB-b10', 'consume-1KiB-b10']);
    const produce = charts[0]?.svg ?? '';
    expect(xmlProblems(produce)).toEqual([]);
    expect(produce).toContain('concurrency 1');
    expect(produce).toContain('concurrency 32');
    expect(produce).not.toContain('raftq-3');
  });
});
