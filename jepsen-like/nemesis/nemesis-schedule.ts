import { assert } from '../../src/base/assert.js';
import { SeededPrng } from '../../src/base/prng.js';
import { partitionShapes, pick, shuffled } from './partition-shapes.js';
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
  /**
   * One fault in this many brings a second one, of a family that can share the time with it,
   * starting while the first is in force; 0: faults never overlap.
   */
  readonly overlapOneIn: number;
}

/** One step of carrying out a schedule: a fault starts or heals. */
export interface ScheduleStep {
  readonly atMs: number;
  readonly kind: 'start' | 'heal';
  readonly fault: ScheduledFault;
}

/**
 * Whether two faults can be in force at once without the nemesis working against itself: never
 * two of one family; membership and log damage only alone (an operator does not retire a node
 * mid-outage, and the damaged node must restart cleanly); not partition with latency (both set
 * the links); not a clock shift with a kill or pause, whose node could not take or undo it.
 */
export function canOverlap(a: NemesisFamily, b: NemesisFamily): boolean {
  if (a === b) return false;
  const alone: readonly NemesisFamily[] = ['membership', 'corrupt'];
  if (alone.includes(a) || alone.includes(b)) return false;
  const pair = new Set([a, b]);
  if (pair.has('partition') && pair.has('latency')) return false;
  if (pair.has('clock') && (pair.has('kill') || pair.has('pause'))) return false;
  return true;
}

/** Every start and heal of a schedule in time order; at one instant, heals first. */
export function scheduleSteps(schedule: readonly ScheduledFault[]): ScheduleStep[] {
  const steps: ScheduleStep[] = schedule.flatMap((fault) => [
    { atMs: fault.startMs, kind: 'start' as const, fault },
    { atMs: fault.healMs, kind: 'heal' as const, fault },
  ]);
  return steps.sort(
    (a, b) => a.atMs - b.atMs || (a.kind === b.kind ? a.fault.id - b.fault.id : a.kind === 'heal' ? -1 : 1),
  );
}

/**
 * Draws a fault schedule from a seed: quiet, fault, heal, quiet, … each fault's family drawn from
 * a shuffled bag of the enabled ones. Now and then (`overlapOneIn`) a second fault of a compatible
 * family starts while the first is in force, and the quiet time follows the later heal; otherwise
 * one fault at a time. Every fault heals before the run ends. The same seed and options always
 * give the same schedule.
 */
export function generateSchedule(options: ScheduleOptions): ScheduledFault[] {
  assert(options.families.length > 0, 'no nemesis family enabled');
  assert(options.faultMsMin > 0 && options.faultMsMin <= options.faultMsMax, 'fault duration range is empty');
  assert(options.quietMsMin >= 0 && options.quietMsMin <= options.quietMsMax, 'quiet duration range is empty');
  const prng = new SeededPrng(options.seed);
  const schedule: ScheduledFault[] = [];
  let nowMs = options.warmupMs;
  // Families come out of a shuffled bag, refilled when empty: every enabled family has a fault
  // within the first as many faults as there are families, which a short run relies on.
  const bag: NemesisFamily[] = [];
  for (;;) {
    const durationMs = between(prng, options.faultMsMin, options.faultMsMax);
    if (nowMs + durationMs > options.runMs) break;
    if (bag.length === 0) bag.push(...shuffled(options.families, prng));
    const family = bag.shift() as NemesisFamily;
    schedule.push({
      id: schedule.length,
      startMs: nowMs,
      healMs: nowMs + durationMs,
      fault: drawFault(family, prng, options),
      seed: prng.nextU32(),
    });
    let lastHealMs = nowMs + durationMs;
    const partners = options.families.filter((other) => canOverlap(family, other));
    if (options.overlapOneIn > 0 && partners.length > 0 && prng.intBelow(options.overlapOneIn) === 0) {
      const startMs = nowMs + between(prng, 0, durationMs - 1);
      const secondMs = between(prng, options.faultMsMin, options.faultMsMax);
      const partner = pick(partners, prng);
      if (startMs + secondMs <= options.runMs) {
        schedule.push({
          id: schedule.length,
          startMs,
          healMs: startMs + secondMs,
          fault: drawFault(partner, prng, options),
          seed: prng.nextU32(),
        });
        lastHealMs = Math.max(lastHealMs, startMs + secondMs);
      }
    }
    nowMs = lastHealMs + between(prng, options.quietMsMin, options.quietMsMax);
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
      return {
        family,
        target: pick(['one', 'leader'] as const, prng),
        offsetMs: prng.intBelow(2) === 0 ? magnitudeMs : -magnitudeMs,
      };
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
