// What a soak run concludes from its samples: receive latency per minute, whether live keys and
// disk size level off, and the plots (SVG, through the jepsen-like plotting module).
import { renderPlot } from '../../jepsen-like/report/svg-plot.js';
import { percentile } from '../stats/percentile.js';

export interface SoakSample {
  readonly tSeconds: number;
  readonly liveRows: number;
  readonly deadVersions: number;
  readonly tombstonedRows: number;
  readonly rowsByFamily: Record<string, number>;
  /** Bytes of DATA/state of the leader, and the largest of any node. */
  readonly stateBytes: number;
  readonly stateBytesMax: number;
  readonly gcPasses: number;
  readonly compactions: number;
  readonly sent: number;
  readonly received: number;
  readonly errors: number;
  readonly receiveP50Ms: number | null;
  readonly receiveP99Ms: number | null;
  /** The machine's 1-minute load average: the machine is shared, and latency follows it. */
  readonly loadAverage: number;
  /** CPU ms the leader's process spent per message sent or received in this sample's window. */
  readonly nodeCpuMsPerMessage: number | null;
}

export interface MinuteLatency {
  readonly minute: number;
  readonly receives: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface Leveling {
  /** Mean over the last quarter of the run divided by the mean over the quarter before it. */
  readonly lastQuarterOverThird: number;
  readonly isLevel: boolean;
}

export interface SoakVerdict {
  readonly minutes: MinuteLatency[];
  /** Minute N's latency over minute 1's (p50 and p99). */
  readonly p50Ratio: number | null;
  readonly p99Ratio: number | null;
  readonly isLatencyWithinBound: boolean;
  readonly liveRows: Leveling;
  readonly stateBytes: Leveling;
  /** Node CPU per message, last quarter over the quarter before: the node's own cost, independent of machine load. */
  readonly cpuPerMessage: Leveling;
}

/** Latency ratio minute N / minute 1 that the soak accepts. */
export const latencyRatioMax = 1.5;
/** Growth between the third and the last quarter of the run still called level. */
export const levelGrowthMax = 1.1;

export function minuteLatencies(
  latencies: ReadonlyArray<{ readonly tSeconds: number; readonly ms: number }>,
): MinuteLatency[] {
  const byMinute = new Map<number, number[]>();
  for (const { tSeconds, ms } of latencies) {
    const minute = Math.floor(tSeconds / 60) + 1;
    const list = byMinute.get(minute) ?? [];
    list.push(ms);
    byMinute.set(minute, list);
  }
  return [...byMinute.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minute, list]) => {
      const sorted = list.sort((a, b) => a - b);
      return { minute, receives: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
    });
}

export function leveling(values: readonly number[]): Leveling {
  const quarter = Math.max(1, Math.floor(values.length / 4));
  const mean = (list: readonly number[]) => list.reduce((sum, v) => sum + v, 0) / Math.max(1, list.length);
  const last = mean(values.slice(values.length - quarter));
  const before = mean(values.slice(Math.max(0, values.length - 2 * quarter), values.length - quarter));
  const ratio = before > 0 ? last / before : Number.POSITIVE_INFINITY;
  return { lastQuarterOverThird: ratio, isLevel: ratio <= levelGrowthMax };
}

/** Minute 1 against the last complete minute (a partial last minute has too few receives to compare). */
export function soakVerdict(
  samples: readonly SoakSample[],
  latencies: ReadonlyArray<{ readonly tSeconds: number; readonly ms: number }>,
  runSeconds: number,
): SoakVerdict {
  const minutes = minuteLatencies(latencies).filter((m) => m.minute * 60 <= runSeconds + 1);
  const first = minutes[0];
  const last = minutes[minutes.length - 1];
  const p50Ratio = first !== undefined && last !== undefined && minutes.length > 1 ? last.p50Ms / first.p50Ms : null;
  const p99Ratio = first !== undefined && last !== undefined && minutes.length > 1 ? last.p99Ms / first.p99Ms : null;
  return {
    minutes,
    p50Ratio,
    p99Ratio,
    isLatencyWithinBound:
      p50Ratio !== null && p99Ratio !== null && p50Ratio <= latencyRatioMax && p99Ratio <= latencyRatioMax,
    liveRows: leveling(samples.map((s) => s.liveRows)),
    stateBytes: leveling(samples.map((s) => s.stateBytes)),
    cpuPerMessage: leveling(
      samples.filter((s) => s.nodeCpuMsPerMessage !== null).map((s) => s.nodeCpuMsPerMessage as number),
    ),
  };
}

export function soakPlots(
  samples: readonly SoakSample[],
  verdict: SoakVerdict,
  title: string,
): { keys: string; disk: string; latency: string; load: string; cpu: string } {
  const minutesOf = (s: SoakSample) => s.tSeconds / 60;
  const keys = renderPlot({
    title: `${title}: live keys and dead versions of the state`,
    xLabel: 'minutes',
    yLabel: 'rows',
    series: [
      {
        name: 'live keys (raftq_state_rows, all families)',
        color: '#1f77b4',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.liveRows]),
      },
      {
        name: 'dead versions (raftq_state_versions{kind="dead"})',
        color: '#d62728',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.deadVersions]),
      },
      {
        name: 'rows in tombstoned generations',
        color: '#7f7f7f',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.tombstonedRows]),
      },
    ],
  });
  const disk = renderPlot({
    title: `${title}: DATA/state on disk`,
    xLabel: 'minutes',
    yLabel: 'MB',
    series: [
      {
        name: 'leader',
        color: '#2ca02c',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.stateBytes / 1e6]),
      },
      {
        name: 'largest node',
        color: '#98df8a',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.stateBytesMax / 1e6]),
      },
    ],
  });
  const latency = renderPlot({
    title: `${title}: ReceiveMessage latency (receives that returned messages)`,
    xLabel: 'minutes',
    yLabel: 'ms',
    series: [
      {
        name: 'p50 per sample',
        color: '#1f77b4',
        style: 'points',
        points: samples.filter((s) => s.receiveP50Ms !== null).map((s) => [minutesOf(s), s.receiveP50Ms as number]),
      },
      {
        name: 'p99 per sample',
        color: '#ff7f0e',
        style: 'points',
        points: samples.filter((s) => s.receiveP99Ms !== null).map((s) => [minutesOf(s), s.receiveP99Ms as number]),
      },
      {
        name: 'p50 per minute',
        color: '#1f77b4',
        style: 'line',
        points: verdict.minutes.map((m) => [m.minute - 0.5, m.p50Ms]),
      },
      {
        name: 'p99 per minute',
        color: '#ff7f0e',
        style: 'line',
        points: verdict.minutes.map((m) => [m.minute - 0.5, m.p99Ms]),
      },
    ],
  });
  const load = renderPlot({
    title: `${title}: machine load (1-minute load average, 2 cores shared with other work)`,
    xLabel: 'minutes',
    yLabel: 'load average',
    series: [
      {
        name: 'load average',
        color: '#9467bd',
        style: 'line',
        points: samples.map((s) => [minutesOf(s), s.loadAverage]),
      },
    ],
  });
  const cpu = renderPlot({
    title: `${title}: CPU of the leader's process per message (sent + received)`,
    xLabel: 'minutes',
    yLabel: 'CPU ms / message',
    series: [
      {
        name: 'CPU ms per message',
        color: '#8c564b',
        style: 'line',
        points: samples
          .filter((s) => s.nodeCpuMsPerMessage !== null)
          .map((s) => [minutesOf(s), s.nodeCpuMsPerMessage as number]),
      },
    ],
  });
  return { keys, disk, latency, load, cpu };
}
