import type { OperationPair } from '../history/operation-pairs.js';
import type { FaultWindow } from '../nemesis/nemesis-event.js';
import { latencyPoints, throughputSeries } from './history-stats.js';
import type { RunResults } from './run-results.js';
import { escapeXml, renderPlot, type PlotBand } from './svg-plot.js';

const familyColors: Record<string, string> = {
  kill: '#e4572e',
  pause: '#f3a712',
  partition: '#7b6ed6',
  clock: '#29a19c',
  membership: '#4d9de0',
  corrupt: '#a23b72',
  latency: '#9aa0a6',
};
const outcomeColors = { ok: '#2e7d32', fail: '#c62828', info: '#ef8f00' } as const;

/**
 * report.html: the verdict first, then throughput and latency over time with every fault window
 * shaded in its family's colour (hover a band for the fault), then each workload's checker results
 * and the nemesis log. Self-contained: inline SVG, no scripts.
 */
export function renderReportHtml(args: {
  readonly results: RunResults;
  readonly pairs: readonly OperationPair[];
  readonly windows: readonly FaultWindow[];
  readonly endMs: number;
  /** When the clients stopped and the heal and drain began, if the run got that far. */
  readonly drainFromMs?: number;
}): string {
  const { results, pairs, windows, endMs } = args;
  const drainBand: PlotBand[] =
    args.drainFromMs === undefined
      ? []
      : [{ fromX: args.drainFromMs / 1000, toX: endMs / 1000, label: 'heal, recovery and drain', color: '#b0bec5' }];
  const bands: PlotBand[] = [
    ...drainBand,
    ...windows.map((w) => ({
      fromX: w.fromMs / 1000,
      toX: (Number.isFinite(w.toMs) ? w.toMs : endMs) / 1000,
      label: `#${w.faultId} ${w.description}`,
      color: familyColors[w.family] ?? '#999',
    })),
  ];
  const xMax = endMs / 1000;
  const throughput = throughputSeries(pairs, 1000, endMs);
  const plots: string[] = [
    renderPlot({
      title: 'Throughput (completed operations per second)',
      xLabel: 'time (s)',
      yLabel: 'ops/s',
      xMin: 0,
      xMax,
      bands,
      series: (['ok', 'fail', 'info'] as const).map((outcome) => ({
        name: outcome,
        color: outcomeColors[outcome],
        style: 'line' as const,
        points: throughput[outcome],
      })),
    }),
  ];
  for (const f of [...new Set(pairs.map((p) => p.f))].sort()) {
    const points = latencyPoints(pairs, f);
    plots.push(
      renderPlot({
        title: `Latency of ${f}`,
        xLabel: 'time invoked (s)',
        yLabel: 'latency (ms, log)',
        yScale: 'log',
        xMin: 0,
        xMax,
        bands,
        series: (['ok', 'fail', 'info'] as const).map((outcome) => ({
          name: `${f} ${outcome}`,
          color: outcomeColors[outcome],
          style: 'points' as const,
          points: points[outcome],
        })),
      }),
    );
  }
  const verdict = results.valid === true ? 'VALID' : results.valid === false ? 'INVALID' : 'UNKNOWN';
  const verdictColor = results.valid === true ? '#2e7d32' : results.valid === false ? '#c62828' : '#ef8f00';
  const legend = Object.entries(familyColors)
    .map(
      ([family, color]) =>
        `<span style="background:${color};opacity:.5;padding:0 8px;margin-right:4px"></span>${family}`,
    )
    .join(' &nbsp; ');
  const workloadSections = Object.entries(results.workloads).map(([name, w]) => {
    const rows = Object.entries(w.checkers)
      .map(
        ([checker, r]) =>
          `<tr><td>${escapeXml(checker)}</td><td style="color:${r.valid === true ? '#2e7d32' : r.valid === false ? '#c62828' : '#ef8f00'}">${String(r.valid)}</td><td><pre>${escapeXml(JSON.stringify(r, null, 1).slice(0, 4000))}</pre></td></tr>`,
      )
      .join('\n');
    const ops = Object.entries(w.operations)
      .map(
        ([f, c]) =>
          `${escapeXml(f)}: ${Object.entries(c)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      )
      .join('<br>');
    return `<h2>Workload ${escapeXml(name)}: ${String(w.valid)}</h2><p>${ops}</p><table border="1" cellpadding="4" style="border-collapse:collapse">${rows}</table>`;
  });
  const faultRows = windows
    .map(
      (w) =>
        `<tr><td>${w.faultId}</td><td>${escapeXml(w.family)}</td><td>${escapeXml(w.description)}</td><td>${(w.fromMs / 1000).toFixed(1)}</td><td>${Number.isFinite(w.toMs) ? (w.toMs / 1000).toFixed(1) : 'never healed'}</td><td>${escapeXml(JSON.stringify(w.details ?? {}))}</td></tr>`,
    )
    .join('\n');
  const skipped = results.nemesis.skipped
    .map((s) => `<li>skipped ${escapeXml(s.family)}: ${escapeXml(s.reason)}</li>`)
    .join('');
  const runErrors = [...(results.cluster?.problems ?? []), ...results.runErrors]
    .map((e) => `<li>${escapeXml(e)}</li>`)
    .join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>raftq jepsen-like ${escapeXml(results.run.name)}</title>
<style>body{font-family:sans-serif;margin:20px;max-width:1000px} pre{margin:0;font-size:11px;white-space:pre-wrap} td{vertical-align:top}</style></head>
<body>
<h1>raftq jepsen-like run ${escapeXml(results.run.name)}: <span style="color:${verdictColor}">${verdict}</span></h1>
<p>seed ${results.run.seed}, ${results.run.nodes} nodes, ${results.run.timeSeconds} s of faults, nemesis ${escapeXml(results.run.nemesis.join(','))}, workloads ${escapeXml(results.run.workloads.join(','))}, started ${escapeXml(results.run.startedAt)}, took ${(results.run.durationMs / 1000).toFixed(1)} s. ${results.nemesis.faultsInjected} faults injected.</p>
<ul>${skipped}${runErrors}</ul>
<p>Fault windows: ${legend}</p>
${plots.join('\n')}
${workloadSections.join('\n')}
<h2>Faults</h2>
<table border="1" cellpadding="4" style="border-collapse:collapse"><tr><th>#</th><th>family</th><th>fault</th><th>from (s)</th><th>to (s)</th><th>details</th></tr>
${faultRows}
</table>
</body></html>
`;
}
