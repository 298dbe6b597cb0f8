// The longest stretches of a V8 CPU profile in which the main thread never went idle: while one
// runs, a node reads no socket, so every request in flight waits it out. Each comes with the
// functions it spent its time in (inclusive, as cpu-profile-summary's --inclusive), which says
// whether a stretch is one long task (a collection step, a large apply) or many ordinary ones in a
// row (a saturated loop). cpu-profile-summary prints them with --busy-runs N.
import { categoryOf, type CpuProfile, type SelfTime } from './cpu-profile-summary.js';
import { frameLabel } from './frame-label.js';

export interface BusyRun {
  /** From the profile's first sample to the idle sample before the run. */
  readonly atMs: number;
  readonly durationMs: number;
  readonly samples: number;
  /** Functions by time within the run, their callees included; shares are of the run. */
  readonly functions: readonly SelfTime[];
}

export function longestBusyRuns(profile: CpuProfile, count: number): BusyRun[] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const isIdle = (id: number): boolean => {
    const node = nodes.get(id);
    return node !== undefined && categoryOf(node) === 'idle';
  };
  const times: number[] = [];
  let atUs = 0;
  for (const delta of profile.timeDeltas) times.push((atUs += delta));
  const runs: Array<{ first: number; end: number }> = [];
  let first = -1;
  profile.samples.forEach((id, i) => {
    if (!isIdle(id)) {
      if (first < 0) first = i;
      return;
    }
    if (first >= 0) runs.push({ first, end: i });
    first = -1;
  });
  if (first >= 0) runs.push({ first, end: profile.samples.length });
  const startUs = (run: { first: number }): number => times[run.first - 1] ?? times[run.first] ?? 0;
  const durationUs = (run: { first: number; end: number }): number => (times[run.end - 1] ?? 0) - startUs(run);
  return runs
    .sort((a, b) => durationUs(b) - durationUs(a))
    .slice(0, count)
    .map((run) => {
      const perFunction = new Map<string, number>();
      let runUs = 0;
      for (let i = run.first; i < run.end; i++) {
        const us = profile.timeDeltas[i] ?? 0;
        runUs += us;
        const labels = new Set<string>();
        for (let at: number | undefined = profile.samples[i]; at !== undefined; at = parents.get(at)) {
          const frame = nodes.get(at);
          if (frame !== undefined && frame.callFrame.functionName !== '(root)') labels.add(frameLabel(frame.callFrame));
        }
        for (const label of labels) perFunction.set(label, (perFunction.get(label) ?? 0) + us);
      }
      const functions = [...perFunction.entries()]
        .map(([name, us]) => ({ name, selfMs: us / 1000, share: runUs > 0 ? us / runUs : 0 }))
        .sort((a, b) => b.selfMs - a.selfMs);
      return { atMs: startUs(run) / 1000, durationMs: durationUs(run) / 1000, samples: run.end - run.first, functions };
    });
}
