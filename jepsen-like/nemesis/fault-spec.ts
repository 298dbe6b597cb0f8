import type { PartitionShape } from './partition-shapes.js';

/** The nemesis families the runner knows; `--nemesis` takes a comma-separated list of them. */
export type NemesisFamily = 'kill' | 'pause' | 'partition' | 'clock' | 'membership' | 'corrupt' | 'latency';
export const nemesisFamilies: readonly NemesisFamily[] = [
  'kill',
  'pause',
  'partition',
  'clock',
  'membership',
  'corrupt',
  'latency',
];

/**
 * One fault as the schedule fixes it. Targets like 'leader' are resolved when the fault starts,
 * from the cluster's state then and the fault's own seed, so a replay with the same seed makes the
 * same choices whenever the cluster is in the same state.
 */
export type FaultSpec =
  /** kill -9, restarted at the heal. 'majority' kills a majority, then the heal restarts them all. */
  | { readonly family: 'kill'; readonly target: 'one' | 'leader' | 'majority' }
  /** SIGSTOP, SIGCONT at the heal. */
  | { readonly family: 'pause'; readonly target: 'one' | 'leader' }
  | { readonly family: 'partition'; readonly shape: PartitionShape }
  /** Shifts one node's cluster clock (never the host clock) through the admin API. */
  | { readonly family: 'clock'; readonly target: 'one' | 'leader'; readonly offsetMs: number }
  /** Removes a node from the membership, then adds it back at the heal. */
  | { readonly family: 'membership'; readonly target: 'one' | 'leader' }
  /** Kills a follower, truncates or corrupts the tail of its Raft log, and restarts it. */
  | { readonly family: 'corrupt'; readonly how: 'truncate' | 'flip'; readonly bytes: number }
  /** Adds latency to every link between nodes. */
  | { readonly family: 'latency'; readonly delayMs: number };

export interface ScheduledFault {
  /** Position in the schedule, from 0. */
  readonly id: number;
  /** When the fault starts, in ms from the start of the run. */
  readonly startMs: number;
  /** When the fault is healed, in ms from the start of the run. */
  readonly healMs: number;
  readonly fault: FaultSpec;
  /** Seeds the choices made when the fault starts (which node, which side). */
  readonly seed: number;
}

export function describeFault(fault: FaultSpec): string {
  switch (fault.family) {
    case 'kill':
      return `kill -9 ${fault.target}`;
    case 'pause':
      return `pause ${fault.target}`;
    case 'partition':
      return `partition ${fault.shape}`;
    case 'clock':
      return `clock ${fault.target} ${fault.offsetMs >= 0 ? '+' : ''}${fault.offsetMs} ms`;
    case 'membership':
      return `remove and re-add ${fault.target}`;
    case 'corrupt':
      return `${fault.how} ${fault.bytes} bytes of a follower's log tail`;
    case 'latency':
      return `latency ${fault.delayMs} ms on every node link`;
  }
}
