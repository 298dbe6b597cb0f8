/**
 * A small SVG plotting module: line and point series over a numeric x axis, shaded bands (fault
 * windows), linear or log y axis, ticks and a legend. It returns a standalone <svg> string, so an
 * HTML report can inline it with no script and no external charting library. bench/ uses it too.
 */
export interface PlotSeries {
  readonly name: string;
  /** Any CSS colour. */
  readonly color: string;
  readonly style: 'line' | 'points';
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface PlotBand {
  readonly fromX: number;
  readonly toX: number;
  readonly label: string;
  readonly color: string;
}

export interface PlotOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly PlotSeries[];
  readonly bands?: readonly PlotBand[];
  readonly widthPx?: number;
  readonly heightPx?: number;
  readonly yScale?: 'linear' | 'log';
  readonly xMin?: number;
  readonly xMax?: number;
}

const margin = { left: 70, right: 20, top: 34, bottom: 70 };
/** Points beyond this per series are thinned evenly: an SVG with a million circles helps no one. */
const pointsPerSeriesMax = 20_000;

export function renderPlot(options: PlotOptions): string {
  const widthPx = options.widthPx ?? 960;
  const heightPx = options.heightPx ?? 320;
  const plotW = widthPx - margin.left - margin.right;
  const plotH = heightPx - margin.top - margin.bottom;
  const isLog = options.yScale === 'log';
  const all = options.series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y) && (!isLog || y > 0));
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const xMin = options.xMin ?? (xs.length > 0 ? minOf(xs) : 0);
  const xMaxRaw = options.xMax ?? (xs.length > 0 ? maxOf(xs) : 1);
  const xMax = xMaxRaw > xMin ? xMaxRaw : xMin + 1;
  const yTicks = isLog ? logTicks(ys) : linearTicks(0, ys.length > 0 ? maxOf(ys) : 1);
  const yLo = yTicks[0] ?? 0;
  const yHi = yTicks[yTicks.length - 1] ?? 1;
  const toX = (x: number): number => margin.left + ((x - xMin) / (xMax - xMin)) * plotW;
  const toY = (y: number): number => {
    const t = isLog
      ? (Math.log10(Math.max(y, yLo)) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo) || 1)
      : (y - yLo) / (yHi - yLo || 1);
    return margin.top + plotH - Math.min(1, Math.max(0, t)) * plotH;
  };

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}" font-family="sans-serif" font-size="11">`,
  );
  parts.push(`<rect x="0" y="0" width="${widthPx}" height="${heightPx}" fill="white"/>`);
  parts.push(
    `<text x="${widthPx / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`,
  );
  for (const band of options.bands ?? []) {
    const x0 = toX(Math.max(band.fromX, xMin));
    const x1 = toX(Math.min(band.toX, xMax));
    if (x1 <= x0) continue;
    parts.push(
      `<rect x="${fmt(x0)}" y="${margin.top}" width="${fmt(x1 - x0)}" height="${plotH}" fill="${band.color}" fill-opacity="0.25"><title>${escapeXml(band.label)}</title></rect>`,
    );
    parts.push(
      `<text x="${fmt(x0 + 2)}" y="${margin.top + 10}" font-size="9" fill="#444">${escapeXml(truncate(band.label, Math.max(4, Math.floor((x1 - x0) / 5))))}</text>`,
    );
  }
  for (const tick of yTicks) {
    const y = toY(tick);
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${fmt(y)}" y2="${fmt(y)}" stroke="#ddd"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${fmt(y + 4)}" text-anchor="end">${formatTick(tick)}</text>`);
  }
  for (const tick of linearTicks(xMin, xMax)) {
    if (tick < xMin || tick > xMax) continue;
    const x = toX(tick);
    parts.push(
      `<line x1="${fmt(x)}" x2="${fmt(x)}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="#333"/>`,
    );
    parts.push(`<text x="${fmt(x)}" y="${margin.top + plotH + 18}" text-anchor="middle">${formatTick(tick)}</text>`);
  }
  parts.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
  );
  parts.push(
    `<text x="${margin.left + plotW / 2}" y="${margin.top + plotH + 36}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  for (const series of options.series) {
    const points = thin(
      series.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!isLog || y > 0)),
    );
    if (series.style === 'line') {
      if (points.length === 0) continue;
      const d = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${fmt(toX(x))} ${fmt(toY(y))}`).join('');
      parts.push(`<path d="${d}" fill="none" stroke="${series.color}" stroke-width="1.5"/>`);
    } else {
      parts.push(`<g fill="${series.color}" fill-opacity="0.6">`);
      for (const [x, y] of points) parts.push(`<circle cx="${fmt(toX(x))}" cy="${fmt(toY(y))}" r="1.6"/>`);
      parts.push('</g>');
    }
  }
  let legendX = margin.left;
  const legendY = heightPx - 12;
  for (const series of options.series) {
    parts.push(`<rect x="${legendX}" y="${legendY - 8}" width="10" height="10" fill="${series.color}"/>`);
    parts.push(`<text x="${legendX + 14}" y="${legendY + 1}">${escapeXml(series.name)}</text>`);
    legendX += 24 + series.name.length * 6.5;
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** Round tick values covering [lo, hi] with about six steps of 1, 2 or 5 times a power of ten. */
export function linearTicks(lo: number, hi: number): number[] {
  if (!(hi > lo)) return [lo, lo + 1];
  const rough = (hi - lo) / 6;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = Math.floor(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? lo) < hi)
    ticks.push(Number(((ticks[ticks.length - 1] ?? lo) + step).toPrecision(12)));
  return ticks;
}

function logTicks(values: readonly number[]): number[] {
  const positive = values.filter((v) => v > 0);
  const lo = positive.length > 0 ? Math.floor(Math.log10(minOf(positive))) : 0;
  const hi = positive.length > 0 ? Math.ceil(Math.log10(maxOf(positive))) : 1;
  const ticks: number[] = [];
  for (let e = lo; e <= Math.max(hi, lo + 1); e++) ticks.push(10 ** e);
  return ticks;
}

function thin(points: ReadonlyArray<readonly [number, number]>): ReadonlyArray<readonly [number, number]> {
  if (points.length <= pointsPerSeriesMax) return points;
  const stride = points.length / pointsPerSeriesMax;
  return Array.from(
    { length: pointsPerSeriesMax },
    (_, i) => points[Math.floor(i * stride)] as readonly [number, number],
  );
}

function formatTick(value: number): string {
  if (Math.abs(value) >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (Math.abs(value) >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(4)));
}

function fmt(value: number): string {
  return value.toFixed(1);
}

function truncate(text: string, charsMax: number): string {
  return text.length <= charsMax ? text : `${text.slice(0, Math.max(1, charsMax - 1))}…`;
}

export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** The least of `values` (non-empty): a loop, since spreading a long run's 200,000 points into Math.min overflows the stack. */
function minOf(values: readonly number[]): number {
  let least = Number.POSITIVE_INFINITY;
  for (const value of values) if (value < least) least = value;
  return least;
}

/** The greatest of `values` (non-empty); see minOf. */
function maxOf(values: readonly number[]): number {
  let greatest = Number.NEGATIVE_INFINITY;
  for (const value of values) if (value > greatest) greatest = value;
  return greatest;
}
