// Latency over time as standalone SVG: per bin of an operation trace, the median, the 99th
// percentile and the slowest operation as three lines; the measured window shaded; what ran beside
// it (LevelDB flushes and compactions, a node's collections and stalls) as bands along the top,
// one lane per source. No dependency, no script.
import type { OpBin } from '../profile/op-timeline-bins.js';
import { escapeXml, niceAxis } from './svg-bar-chart.js';

/** Something that ran from startEpochMs to endEpochMs, drawn as a band in its lane. */
export interface TimelineBand {
  readonly startEpochMs: number;
  readonly endEpochMs: number;
  readonly color: string;
  /** Shown on hover. */
  readonly title: string;
}

export interface TimelineLane {
  readonly name: string;
  readonly bands: readonly TimelineBand[];
}

export interface TimelineChart {
  readonly title: string;
  readonly binMs: number;
  readonly windowMs: number;
  /** The window's start on the epoch clock: where LevelDB's events (epoch times) are placed. */
  readonly windowStartEpochMs: number;
  readonly bins: readonly OpBin[];
  /** Drawn top to bottom above the plot. */
  readonly lanes: readonly TimelineLane[];
}

const lines = [
  { name: 'median', color: '#2ca02c', pick: (bin: OpBin) => bin.p50Ms },
  { name: 'p99', color: '#ff7f0e', pick: (bin: OpBin) => bin.p99Ms },
  { name: 'slowest', color: '#d62728', pick: (bin: OpBin) => bin.maxMs },
] as const;

export function renderTimelineChart(chart: TimelineChart): string {
  const width = 960;
  const eventRowPx = 12;
  const margin = { top: 40 + eventRowPx * chart.lanes.length, right: 150, bottom: 50, left: 70 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = 300;
  const height = margin.top + plotHeight + margin.bottom;
  const firstMs = Math.min(0, ...chart.bins.map((bin) => bin.fromMs));
  const lastMs = Math.max(chart.windowMs, ...chart.bins.map((bin) => bin.fromMs + chart.binMs));
  const x = (ms: number) => margin.left + ((ms - firstMs) / (lastMs - firstMs)) * plotWidth;
  const yAxis = niceAxis(Math.max(...chart.bins.map((bin) => bin.maxMs), 1));
  const y = (ms: number) => margin.top + plotHeight - (ms / yAxis.top) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(chart.title)}</text>`,
    `<rect x="${x(0)}" y="${margin.top}" width="${x(chart.windowMs) - x(0)}" height="${plotHeight}" fill="#f0f4fa"/>`,
  ];
  for (let tick = 0; tick <= yAxis.top + 1e-9; tick += yAxis.step) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end">${+tick.toFixed(2)}</text>`,
    );
  }
  const secondStep = niceAxis((lastMs - firstMs) / 1000).step * 1000;
  for (let tick = Math.ceil(firstMs / secondStep) * secondStep; tick <= lastMs; tick += secondStep)
    parts.push(
      `<text x="${x(tick)}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${+(tick / 1000).toFixed(2)}</text>`,
    );
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">seconds from the measured window's start (shaded)</text>`,
    `<text transform="translate(18 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">operation latency, ms</text>`,
  );
  chart.lanes.forEach((lane, row) => {
    const rowY = 30 + row * eventRowPx;
    parts.push(`<text x="${margin.left + plotWidth + 6}" y="${rowY + 9}">${escapeXml(lane.name)}</text>`);
    for (const band of lane.bands) {
      const fromMs = Math.max(firstMs, band.startEpochMs - chart.windowStartEpochMs);
      const toMs = Math.min(lastMs, band.endEpochMs - chart.windowStartEpochMs);
      if (toMs < firstMs || fromMs > lastMs) continue;
      const widthPx = Math.max(2, x(toMs) - x(fromMs));
      parts.push(
        `<rect x="${x(fromMs)}" y="${rowY}" width="${widthPx}" height="${eventRowPx - 3}" fill="${band.color}"><title>${escapeXml(band.title)}</title></rect>`,
      );
    }
  });
  for (const line of lines) {
    const points = chart.bins.map((bin) => `${x(bin.fromMs + chart.binMs / 2)},${y(line.pick(bin))}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${line.color}" stroke-width="1.5"/>`);
  }
  lines.forEach((line, i) => {
    const legendY = margin.top + 20 + i * 18;
    parts.push(
      `<line x1="${margin.left + plotWidth + 10}" x2="${margin.left + plotWidth + 30}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${line.color}" stroke-width="2"/>`,
      `<text x="${margin.left + plotWidth + 36}" y="${legendY}">${line.name}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
