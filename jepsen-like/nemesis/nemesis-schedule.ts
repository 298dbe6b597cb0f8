import { assert } from '../../src/base/assert.js';
import { SeededPrng } from '../../src/base/prng.js';
import { pick } from './partition-shapes.js';
import { partitionShapes } from './partition-shapes.js';
import type { FaultSpec, NemesisFamily, ScheduledFault } from './fault-spec.js';

export interface ScheduleOptions {
  readonly seed: number;
  readonly families: readonly NemesisFamily[];
  /** The part of the run in which faults may start and end; the runner heals and drains after it. */
  readonly runMs: number;
  /** Quiet time before the first fault, so the workload is running before anything breaks. */
  readonly warmupMs: number;
  readonly faultMsMin: number;
  readonly faultMsMax: number;
  readonly quietMsMin: number;
  readonly quietMsMax: number;
  /** Largest clock offset, either way. Kept under the cluster's skew bound unless testing it. */
  readonly clockOffsetMsMax: number;
}

/**
 * Draws a fault schedule from a seed: quiet, fault, heal, quiet, … with one fault at a time, each
 * from a family drawn uniformly among the enabled ones. Faults never overlap, so every window in
 * the report has one cause, and each heals before the run ends. The same seed and options always
 * give the same schedule.
 */
export function generateSchedule(options: ScheduleOptions): ScheduledFault[] {
  assert(options.families.length > 0, 'no nemesis family enabled');
  assert(options.faultMsMin > 0 && options.faultMsMin <= options.faultMsMax, 'fault duration range is empty');
  assert(options.quietMsMin >= 0 && options.quietMsMin <= options.quietMsMax, 'quiet duration range is empty');
  const prng = new SeededPrng(options.seed);
  const schedule: ScheduledFault[] = [];
  let nowMs = options.warmupMs;
  for (;;) {
    const durationMs = between(prng, options.faultMsMin, options.faultMsMax);
    if (nowMs + durationMs > options.runMs) break;
    const family = pick(options.families, prng);
    schedule.push({ id: schedule.length, startMs: nowMs, healMs: nowMs + durationMs, fault: drawFault(family, prng, options), seed: prng.nextU32() });
    nowMs += durationMs + between(prng, options.quietMsMin, options.quietMsMax);
  }
  return schedule;
}

function drawFault(family: NemesisFamily, prng: SeededPrng, options: ScheduleOptions): FaultSpec {
  switch (family) {
    case 'kill':
      return { family, target: pick(['one', 'leader', 'majority'] as const, prng) };
    case 'pause':
      return { family, target: pick(['one', 'leader'] as const, prng) };
    case 'partition':
      return { family, shape: pick(partitionShapes, prng) };
    case 'clock': {
      const magnitudeMs = between(prng, Math.floor(options.clockOffsetMsMax / 4), options.clockOffsetMsMax);
      return { family, target: pick(['one', 'leader'] as const, prng), offsetMs: prng.intBelow(2) === 0 ? magnitudeMs : -magnitudeMs };
    }
    case 'membership':
      return { family, target: pick(['one', 'leader'] as const, prng) };
    case 'corrupt':
      return { family, how: pick(['truncate', 'flip'] as const, prng), bytes: between(prng, 1, 4096) };
    case 'latency':
      return { family, delayMs: between(prng, 20, 200) };
  }
}

function between(prng: SeededPrng, min: number, max: number): number {
  return min + prng.intBelow(max - min + 1);
}
