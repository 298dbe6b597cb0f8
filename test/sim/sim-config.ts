import { SeededPrng } from '../../src/base/prng.js';
import type { NetworkFaults } from './sim-network.js';

/** The deliberate faults a run may enable: three in the core, one in the simulated runtime. */
export interface SimFaults {
  readonly commitPreviousTermByCounting?: boolean;
  readonly grantVoteTwicePerTerm?: boolean;
  readonly skipLogUpToDateCheck?: boolean;
  /** The runtime sends a Ready's messages before it persists the Ready (breaks the Ready contract). */
  readonly sendBeforePersist?: boolean;
}
export type SimFaultName = keyof SimFaults;
export const simFaultNames: readonly SimFaultName[] = [
  'commitPreviousTermByCounting',
  'grantVoteTwicePerTerm',
  'skipLogUpToDateCheck',
  'sendBeforePersist',
];

/**
 * Relative weights of the events the scheduler picks between while the cluster is under fire.
 * Traffic (deliver, ready, tick, propose, read) competes with traffic, `deliver` once per
 * deliverable message and `ready` once per node with a Ready waiting; faults compete with faults.
 */
export interface EventWeights {
  readonly deliver: number;
  readonly ready: number;
  readonly tick: number;
  readonly propose: number;
  readonly read: number;
  readonly crash: number;
  /** A crash in the middle of handling a Ready: some of its steps done, the rest lost. */
  readonly crashMidReady: number;
  /** The leader crashes (in the middle of a Ready when it has one). */
  readonly crashLeader: number;
  readonly restart: number;
  /** A process stops for up to two election timeouts, then carries on. */
  readonly pause: number;
  readonly partition: number;
  readonly heal: number;
  readonly confChange: number;
  readonly transferLeader: number;
}

export interface SimRaftOptions {
  readonly electionTimeoutTicks: number;
  readonly heartbeatTicks: number;
  readonly inflightMessagesMax: number;
  readonly appendBytesMax: number;
  readonly uncommittedBytesMax: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
}

export interface SimConfig {
  readonly seed: number;
  /** Voters at the start; more nodes may be added and removed along the way. */
  readonly clusterSize: number;
  /** Rounds of (chaos, heal, liveness check); each chaos phase has `chaosEventsPerRound` events. */
  readonly rounds: number;
  readonly chaosEventsPerRound: number;
  readonly network: NetworkFaults;
  readonly raft: SimRaftOptions;
  /** Applied entries past the last snapshot that make a node snapshot and compact its log. */
  readonly snapshotThresholdEntries: number;
  /** Whether applied state survives a crash (written with each apply) or is rebuilt from the snapshot. */
  readonly isStateMachineDurable: boolean;
  readonly faults: SimFaults;
  readonly eventWeights: EventWeights;
  /** Chance, after each tick of the chaos phase, that the next event is a fault. */
  readonly nemesisProbabilityPerTick: number;
  /** Chance that a newly elected leader is crashed or cut off a few events into its term. */
  readonly leaderChurnProbability: number;
  /** Half of the strikes on a new leader come within this many events of its election. */
  readonly leaderStrikeDelayEventsMax: number;
  /** Chance that a leader which just advanced its commit index is struck a few events later. */
  readonly commitStrikeProbability: number;
  /** Chance that a node crashes in the middle of a Ready that changes its term or vote. */
  readonly crashOnVoteProbability: number;
  /** Ticks after healing within which a leader must emerge and fresh proposals must apply everywhere. */
  readonly livenessTicksMax: number;
  /** Proposals made after healing that must apply on every live member within the bound. */
  readonly livenessProposals: number;
}

export const defaultEventWeights: EventWeights = {
  deliver: 8,
  ready: 10,
  tick: 10,
  propose: 6,
  read: 1.5,
  crash: 2,
  crashMidReady: 3,
  crashLeader: 3,
  restart: 6,
  pause: 2,
  partition: 2,
  heal: 3,
  confChange: 5,
  transferLeader: 2,
};

function pick<T>(prng: SeededPrng, options: readonly T[]): T {
  return options[prng.intBelow(options.length)] as T;
}

/**
 * How a run attacks the cluster. `mixed` draws every knob from the seed, gentle to hostile.
 * `leaderChurn` keeps three nodes in quick successions of short-lived leaders whose log tails
 * diverge — nearly every new leader is struck early, leaders are cut off right after they
 * commit, appends carry one entry at a time, and neither PreVote nor CheckQuorum dampens
 * elections — the ground on which Raft's commit rule (§5.4.2, Figure 8) matters.
 */
export type SimProfile = 'mixed' | 'leaderChurn';

/** Which profile a seed runs: one seed in four is a leader-churn run. */
export function profileForSeed(seed: number): SimProfile {
  return seed % 4 === 3 ? 'leaderChurn' : 'mixed';
}

/**
 * The configuration of one run, drawn from its seed: cluster size alternates (odd seeds of the
 * mixed profile run five nodes), and network faults, message sizes and snapshot thresholds vary
 * so that the corpus covers both gentle and hostile runs. `overrides` lets tests pin anything.
 */
export function simConfigForSeed(
  seed: number,
  overrides: Partial<SimConfig> = {},
  profile: SimProfile = profileForSeed(seed),
): SimConfig {
  const prng = new SeededPrng(seed ^ 0x5eed);
  const electionTimeoutTicks = pick(prng, [6, 10, 10]);
  const mixed: SimConfig = {
    seed,
    clusterSize: seed % 2 === 0 ? 3 : 5,
    rounds: 2,
    chaosEventsPerRound: 1_200,
    network: {
      dropProbability: pick(prng, [0, 0.02, 0.05, 0.1]),
      duplicateProbability: pick(prng, [0, 0.02, 0.05]),
      delayProbability: pick(prng, [0, 0.1, 0.3]),
      // Delays stay well under an election timeout, as on a real network; longer ones only
      // make every run leaderless.
      delayTicksMax: Math.min(pick(prng, [1, 2, 3]), Math.floor(electionTimeoutTicks / 3)),
      reorderProbability: pick(prng, [0, 0.1, 0.3]),
    },
    raft: {
      electionTimeoutTicks,
      heartbeatTicks: 1,
      inflightMessagesMax: pick(prng, [1, 4, 64]),
      // 30 bytes is one small entry per append: followers acknowledge entries one at a time,
      // which is what exposes commit rules (an old-term entry acknowledged before the no-op).
      appendBytesMax: pick(prng, [30, 30, 200, 1_048_576]),
      uncommittedBytesMax: pick(prng, [64, 65_536]),
      preVote: prng.nextFloat() < 0.75,
      checkQuorum: prng.nextFloat() < 0.75,
    },
    snapshotThresholdEntries: pick(prng, [8, 20, 50]),
    isStateMachineDurable: prng.nextFloat() < 0.5,
    faults: {},
    eventWeights: defaultEventWeights,
    nemesisProbabilityPerTick: pick(prng, [0.04, 0.08, 0.15]),
    leaderChurnProbability: pick(prng, [0, 0.3, 0.6, 0.9]),
    leaderStrikeDelayEventsMax: 12,
    commitStrikeProbability: pick(prng, [0, 0.1, 0.3]),
    crashOnVoteProbability: pick(prng, [0, 0.03, 0.1]),
    livenessTicksMax: 40 * electionTimeoutTicks,
    livenessProposals: 3,
  };
  const config: SimConfig =
    profile === 'mixed'
      ? mixed
      : {
          ...mixed,
          clusterSize: 3,
          raft: {
            ...mixed.raft,
            electionTimeoutTicks: 10,
            inflightMessagesMax: 1,
            appendBytesMax: 30,
            uncommittedBytesMax: 65_536,
            preVote: false,
            checkQuorum: false,
          },
          leaderChurnProbability: 0.9,
          leaderStrikeDelayEventsMax: 3,
          commitStrikeProbability: 0.5,
          livenessTicksMax: 400,
        };
  return { ...config, ...overrides };
}
