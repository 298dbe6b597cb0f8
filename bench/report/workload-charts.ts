// One chart per workload (kind × message size × batch size): throughput at each concurrency, a
// bar per system.
import { workloadKey } from '../cell-spec.js';
import type { CellMeasurement } from './bench-result.js';
import { renderBarChart } from './svg-bar-chart.js';

export interface WorkloadChart {
  readonly workloadKey: string;
  readonly svg: string;
}

export function renderWorkloadCharts(
  cells: readonly CellMeasurement[],
  systemOrder: readonly string[],
): WorkloadChart[] {
  const keys = [...new Set(cells.map((c) => workloadKey(c.cell)))];
  return keys.map((key) => {
    const inWorkload = cells.filter((c) => workloadKey(c.cell) === key);
    const concurrencies = [...new Set(inWorkload.map((c) => c.cell.concurrency))].sort((a, b) => a - b);
    const systems = systemOrder.filter((s) => inWorkload.some((c) => c.system === s));
    const series = systems.map((system) => ({
      name: system,
      values: concurrencies.map((concurrency) => {
        const cell = inWorkload.find((c) => c.system === system && c.cell.concurrency === concurrency);
        return cell?.status === 'ok' ? cell.throughputMsgsPerSecond : null;
      }),
    }));
    const svg = renderBarChart({
      title: `${key}: messages per second`,
      yLabel: 'messages / s',
      groups: concurrencies.map((c) => `concurrency ${c}`),
      series,
    });
    return { workloadKey: key, svg };
  });
}
