import { simConfigForSeed, type SimConfig, type SimProfile } from './sim-config.js';
import { Simulation, type SimResult, type SimViolation } from './simulation.js';

export interface RunSeedsOptions {
  readonly from: number;
  readonly count: number;
  /** Pins parts of every run's configuration (a fault to enable, a profile's knobs). */
  readonly overrides?: Partial<SimConfig>;
  /** Runs every seed in this profile instead of the one its seed picks. */
  readonly profile?: SimProfile;
  /** Stop at the first violation instead of running every seed. */
  readonly isStoppingAtFirstViolation?: boolean;
  readonly onResult?: (result: SimResult) => void;
}

export interface RunSeedsSummary {
  readonly seeds: number;
  readonly events: number;
  readonly violations: readonly SimViolation[];
}

/** One run of one seed. Same seed, same configuration: same trace, same hash. */
export function runSeed(
  seed: number,
  options: { isKeepingTrace: boolean; overrides?: Partial<SimConfig>; profile?: SimProfile },
): SimResult {
  const config = simConfigForSeed(seed, options.overrides ?? {}, options.profile);
  return new Simulation(config, { isKeepingTrace: options.isKeepingTrace }).run();
}

/** Runs seeds `from`, `from + 1`, … one after another and collects their violations. */
export function runSeeds(options: RunSeedsOptions): RunSeedsSummary {
  const violations: SimViolation[] = [];
  let seeds = 0;
  let events = 0;
  for (let seed = options.from; seed < options.from + options.count; seed++) {
    const result = runSeed(seed, {
      isKeepingTrace: false,
      ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
      ...(options.profile === undefined ? {} : { profile: options.profile }),
    });
    seeds += 1;
    events += result.events;
    options.onResult?.(result);
    if (result.violation !== null) {
      violations.push(result.violation);
      if (options.isStoppingAtFirstViolation === true) break;
    }
  }
  return { seeds, events, violations };
}
