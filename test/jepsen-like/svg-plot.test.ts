import { describe, expect, it } from 'vitest';
import { linearTicks, renderPlot } from '../../jepsen-like/report/svg-plot.js';

describe('SVG plot', () => {
  it('draws a band for each fault window, a path per line series and a circle per point', () => {
    const svg = renderPlot({
      title: 'Throughput & <latency>',
      xLabel: 'time (s)',
      yLabel: 'ops/s',
      bands: [{ fromX: 2, toX: 4, label: 'kill -9 n1', color: 'red' }],
      series: [
        {
          name: 'ok',
          color: 'green',
          style: 'line',
          points: [
            [0, 1],
            [1, 5],
            [2, 3],
          ],
        },
        {
          name: 'info',
          color: 'orange',
          style: 'points',
          points: [
            [1, 2],
            [3, 4],
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Throughput &amp; &lt;latency&gt;');
    expect(svg).toContain('<title>kill -9 n1</title>');
    expect(svg.match(/<path /g)).toHaveLength(1);
    expect(svg.match(/<circle /g)).toHaveLength(2);
  });

  it('places a band where its x values fall on the axis', () => {
    const svg = renderPlot({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      widthPx: 1090,
      xMin: 0,
      xMax: 100,
      bands: [{ fromX: 50, toX: 75, label: 'b', color: 'red' }],
      series: [],
    });
    // plot width = 1090 - 70 - 20 = 1000 px starting at x = 70.
    expect(svg).toContain('<rect x="570.0" y="34" width="250.0"');
  });

  it('leaves non-positive values out of a log plot instead of drawing them at minus infinity', () => {
    const svg = renderPlot({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      yScale: 'log',
      series: [
        {
          name: 's',
          color: 'blue',
          style: 'points',
          points: [
            [0, 0],
            [1, 10],
            [2, 1000],
          ],
        },
      ],
    });
    expect(svg.match(/<circle /g)).toHaveLength(2);
    expect(svg).not.toContain('NaN');
  });

  it('chooses round ticks that cover the data', () => {
    expect(linearTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(linearTicks(0, 0.3)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]);
    expect(linearTicks(5, 5)).toEqual([5, 6]);
  });

  it('plots a long run of 300,000 points on a log scale (the bounds are found without spreading them into Math.min)', () => {
    const points: Array<[number, number]> = Array.from({ length: 300_000 }, (_, i) => [i, 1 + (i % 1000)]);
    const svg = renderPlot({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      yScale: 'log',
      series: [{ name: 's', color: 'blue', style: 'line', points }],
    });
    expect(svg).toContain('<path ');
  });
});
