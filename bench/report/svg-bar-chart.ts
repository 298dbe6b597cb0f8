// A small grouped bar chart as standalone SVG: groups along x (concurrency levels), one bar per
// series (system) in each group, a linear y axis from zero. Enough for one chart per workload,
// with no dependency and no script in the output.

export interface BarSeries {
  readonly name: string;
  /** One value per group; null draws no bar (the system did not run or failed that cell). */
  readonly values: readonly (number | null)[];
}

export interface BarChart {
  readonly title: string;
  readonly yLabel: string;
  readonly groups: readonly string[];
  readonly series: readonly BarSeries[];
}

const palette = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A "nice" axis top and step (1, 2 or 5 times a power of ten) covering `max` in about five ticks. */
export function niceAxis(max: number): { top: number; step: number } {
  if (!(max > 0)) return { top: 1, step: 0.2 };
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return { top: Math.ceil(max / step) * step, step };
}

function formatTick(value: number): string {
  if (value >= 1_000_000) return `${+(value / 1_000_000).toFixed(2)}M`;
  if (value >= 1_000) return `${+(value / 1_000).toFixed(2)}k`;
  return `${+value.toFixed(2)}`;
}

export function renderBarChart(chart: BarChart): string {
  const width = 860;
  const height = 420;
  const margin = { top: 40, right: 190, bottom: 50, left: 70 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const values = chart.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const { top, step } = niceAxis(Math.max(0, ...values));
  const y = (v: number): number => margin.top + plotHeight - (v / top) * plotHeight;
  const groupWidth = plotWidth / Math.max(1, chart.groups.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(chart.title)}</text>`);
  for (let tick = 0; tick <= top + step / 2; tick += step) {
    const ty = y(tick).toFixed(1);
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${ty}" y2="${ty}" stroke="#dddddd"/>`);
    parts.push(
      `<text x="${margin.left - 6}" y="${ty}" text-anchor="end" dominant-baseline="middle">${formatTick(tick)}</text>`,
    );
  }
  parts.push(
    `<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  chart.groups.forEach((group, g) => {
    const gx = margin.left + g * groupWidth + groupWidth * 0.1;
    chart.series.forEach((series, s) => {
      const value = series.values[g];
      const bx = (gx + s * barWidth).toFixed(1);
      if (value === null || value === undefined || !Number.isFinite(value)) return;
      const by = y(value);
      parts.push(
        `<rect x="${bx}" y="${by.toFixed(1)}" width="${Math.max(1, barWidth - 2).toFixed(1)}" height="${(margin.top + plotHeight - by).toFixed(1)}" fill="${palette[s % palette.length]}"><title>${escapeXml(`${series.name}: ${formatTick(value)}`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(margin.left + (g + 0.5) * groupWidth).toFixed(1)}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${escapeXml(group)}</text>`,
    );
  });
  parts.push(
    `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${margin.top + plotHeight}" y2="${margin.top + plotHeight}" stroke="#333333"/>`,
  );
  chart.series.forEach((series, s) => {
    const ly = margin.top + s * 20;
    const lx = margin.left + plotWidth + 16;
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="12" fill="${palette[s % palette.length]}"/>`);
    parts.push(`<text x="${lx + 18}" y="${ly + 10}">${escapeXml(series.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
