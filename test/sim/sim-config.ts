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
export const simFaultNames: readonly SimFaultName[] = ['commitPreviousTermByCounting', 'grantVoteTwicePerTerm', 'skipLogUpToDateCheck', 'sendBeforePersist'];

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
  readonly restart: number;
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
  restart: 6,
  partition: 2,
  heal: 3,
  confChange: 3,
  transferLeader: 2,
};

function pick<T>(prng: SeededPrng, options: readonly T[]): T {
  return options[prng.intBelow(options.length)] as T;
}

/**
 * The configuration of one run, drawn from its seed: cluster size alternates (odd seeds run five
 * nodes), and network faults, message sizes and snapshot thresholds vary so that the corpus
 * covers both gentle and hostile runs. `overrides` lets tests pin anything.
 */
export function simConfigForSeed(seed: number, overrides: Partial<SimConfig> = {}): SimConfig {
  const prng = new SeededPrng(seed ^ 0x5eed);
  const electionTimeoutTicks = pick(prng, [6, 10, 10]);
  const config: SimConfig = {
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
    livenessTicksMax: 40 * electionTimeoutTicks,
    livenessProposals: 3,
  };
  return { ...config, ...overrides };
}
