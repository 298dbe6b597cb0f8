// A V8 .cpuprofile cut to the samples of one stretch of time before its end: what a whole-run
// profile (`node --cpu-prof`, written when the node stops) says about the last cell of a bench run
// alone, when no signal can be timed to land inside it (a three-node consume cell's pre-fill lasts
// 15-25 s after a quiet period of varying length). The cell's measured window ends shortly before
// the bench stops the nodes, so e.g. 5.5 s to 1.5 s before the end is its last 4 seconds.
import type { CpuProfile } from './cpu-profile-summary.js';

/** The samples taken from `fromS` to `toS` seconds before the profile's last sample (fromS > toS ≥ 0). */
export function windowBeforeEnd(profile: CpuProfile, fromS: number, toS: number): CpuProfile {
  if (!(Number.isFinite(fromS) && Number.isFinite(toS) && fromS > toS && toS >= 0))
    throw new RangeError(`a window before the end needs FROM > TO >= 0 seconds, got ${fromS}:${toS}`);
  const sampledAtUs: number[] = [];
  let atUs = 0;
  for (const delta of profile.timeDeltas) sampledAtUs.push((atUs += delta));
  const endUs = sampledAtUs[sampledAtUs.length - 1] ?? 0;
  const fromUs = endUs - fromS * 1e6;
  const toUs = endUs - toS * 1e6;
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  profile.samples.forEach((sample, i) => {
    const at = sampledAtUs[i] as number;
    if (at < fromUs || at > toUs) return;
    samples.push(sample);
    // Each sample keeps its own delta: the summaries charge a sample the time since the one before.
    timeDeltas.push(profile.timeDeltas[i] as number);
  });
  return { ...profile, samples, timeDeltas };
}

/** `--before-end=FROM:TO` (seconds), or undefined when the flag is absent. */
export function parseBeforeEndFlag(flags: readonly string[]): { fromS: number; toS: number } | undefined {
  const flag = flags.find((f) => f.startsWith('--before-end='));
  if (flag === undefined) return undefined;
  const [from, to] = flag.slice('--before-end='.length).split(':');
  return { fromS: Number(from), toS: Number(to ?? '0') };
}
