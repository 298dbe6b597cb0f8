import type { NodeId } from '../../src/raft/types.js';
import { InvariantViolationError, type InvariantName } from './invariants/invariant-violation-error.js';
import { healAndCheckLiveness } from './liveness-check.js';
import type { SimConfig } from './sim-config.js';
import { SimCluster } from './sim-cluster.js';
import type { SimNode } from './sim-node.js';

export interface SimViolation {
  readonly seed: number;
  /** The event during which the violation showed (1-based, as numbered in the trace). */
  readonly eventNumber: number;
  /** 'unexpectedError': the core or the runtime threw (an assertion, most likely). */
  readonly invariant: InvariantName | 'unexpectedError';
  readonly message: string;
}

export interface SimResult {
  readonly seed: number;
  readonly clusterSize: number;
  readonly events: number;
  readonly ticks: number;
  readonly acks: number;
  readonly traceHash: string;
  readonly violation: SimViolation | null;
  /** Numbered trace lines, when the run kept them. */
  readonly traceLines: string[];
}

type WeightedAction = readonly [weight: number, action: () => void];

interface LeaderStrike {
  readonly leaderId: NodeId;
  readonly term: number;
  inEvents: number;
  /** Cut the leader off rather than crash it (see maybeStrikeAfterCommit). */
  readonly isIsolating: boolean;
}

/**
 * One deterministic run of a simulated cluster. Everything — scheduling, the network, every
 * node's randomized timeouts — draws from one SeededPrng made from the seed, and nothing reads
 * a clock, so a seed replays its run exactly. A run alternates chaos (random events: message
 * deliveries, Readies, ticks, proposals, reads, crashes, restarts, partitions, membership
 * changes, leadership transfers) with healing and a liveness check; invariants are checked
 * after every event.
 */
export class Simulation {
  private readonly cluster: SimCluster;
  /** Set by a tick: the next chaos event is a fault (crash, partition, membership change, ...). */
  private isNemesisDue = false;
  /** The last leader seen (id/term), and a pending strike against a leader. */
  private lastLeaderKey = '';
  private leaderStrike: LeaderStrike | null = null;

  constructor(
    readonly config: SimConfig,
    options: { isKeepingTrace: boolean } = { isKeepingTrace: false },
  ) {
    this.cluster = new SimCluster(config, options);
    this.cluster.onLeaderCommitted = (node) => this.maybeStrikeAfterCommit(node);
  }

  run(): SimResult {
    const { cluster } = this;
    let violation: SimViolation | null = null;
    try {
      cluster.bootstrap();
      for (let round = 1; round <= this.config.rounds; round++) {
        cluster.record(`round ${round}: chaos`);
        cluster.network.faults = this.config.network;
        for (let i = 0; i < this.config.chaosEventsPerRound; i++) this.chaosEvent();
        this.leaderStrike = null;
        healAndCheckLiveness(cluster);
      }
    } catch (err) {
      violation = this.toViolation(err);
      cluster.trace.append(
        `violation of ${violation.invariant} in event ${violation.eventNumber}: ${violation.message}`,
      );
    }
    return {
      seed: this.config.seed,
      clusterSize: this.config.clusterSize,
      events: cluster.trace.events,
      ticks: cluster.ticks,
      acks: cluster.monitor.durability.ackCount,
      traceHash: cluster.trace.digest(),
      violation,
      traceLines: cluster.trace.lines(),
    };
  }

  private toViolation(err: unknown): SimViolation {
    // Thrown while an event was under way, the violation belongs to that event, whose line is
    // not recorded yet; thrown by the checks after an event, to the event just recorded.
    const eventNumber = this.cluster.trace.events + (this.cluster.isCheckingAfterEvent ? 0 : 1);
    if (err instanceof InvariantViolationError) {
      return { seed: this.config.seed, eventNumber, invariant: err.invariant, message: err.detail };
    }
    const message =
      err instanceof Error
        ? `${err.name}: ${err.message}\n${(err.stack ?? '').split('\n').slice(1, 6).join('\n')}`
        : String(err);
    return { seed: this.config.seed, eventNumber, invariant: 'unexpectedError', message };
  }

  /**
   * One event of the chaos phase. Traffic (deliveries, Readies, ticks, client requests) is drawn
   * by weight; faults come at a rate per tick instead, so that how often the cluster is hit does
   * not depend on how busy it is.
   */
  private chaosEvent(): void {
    if (this.leaderStrike !== null && this.leaderStrike.inEvents-- <= 0) {
      const strike = this.leaderStrike;
      this.leaderStrike = null;
      this.strikeLeader(strike);
    } else if (this.isNemesisDue) {
      this.isNemesisDue = false;
      this.runWeighted(this.nemesisOptions());
    } else {
      this.runWeighted(this.trafficOptions());
    }
    this.cluster.afterEvent();
    this.maybeScheduleLeaderStrike();
  }

  private trafficOptions(): WeightedAction[] {
    const { cluster } = this;
    const w = this.config.eventWeights;
    const running = cluster.liveNodes().filter((n) => n.isAvailable);
    const withReady = running.filter((n) => n.hasReady());
    const deliverableCount = cluster.network.deliverableCountTo(cluster.isListening);
    const options: WeightedAction[] = [
      [
        w.tick,
        () => {
          cluster.tickAll();
          this.isNemesisDue = cluster.prng.nextFloat() < this.config.nemesisProbabilityPerTick;
        },
      ],
    ];
    // Deliveries and Readies weigh by how many are waiting, so that between two ticks (a tick is
    // tens of milliseconds) the cluster mostly keeps up with its traffic, as a real one does.
    if (deliverableCount > 0) options.push([w.deliver * deliverableCount, () => cluster.deliverNext()]);
    if (withReady.length > 0)
      options.push([w.ready * withReady.length, () => cluster.readyEvent(cluster.pick(withReady))]);
    if (running.length > 0) {
      options.push([w.propose, () => cluster.propose(cluster.pick(running))]);
      options.push([w.read, () => cluster.read(cluster.pick(running))]);
    }
    return options;
  }

  private nemesisOptions(): WeightedAction[] {
    const { cluster } = this;
    const w = this.config.eventWeights;
    const running = cluster.liveNodes().filter((n) => n.isRunning);
    const crashedCount = cluster.crashedCount;
    const withReady = running.filter((n) => n.isAvailable && n.hasReady());
    const foundLeader = cluster.findLeader();
    const leader = foundLeader?.isAvailable === true ? foundLeader : null;
    const options: WeightedAction[] = [[w.partition, () => cluster.partition()]];
    const awake = running.filter((n) => n.isAvailable);
    if (awake.length > 1) {
      // Pause the leader half the time: a leader that wakes up after its term has passed is
      // the classic stale leader.
      const pauseTicksMax = 2 * this.config.raft.electionTimeoutTicks;
      options.push([
        w.pause,
        () =>
          cluster.pause(
            leader !== null && cluster.prng.nextFloat() < 0.5 ? leader : cluster.pick(awake),
            1 + cluster.prng.intBelow(pauseTicksMax),
          ),
      ]);
    }
    if (crashedCount < cluster.crashedMax && running.length > 1) {
      options.push([w.crash, () => cluster.crash(cluster.pick(running))]);
      if (withReady.length > 0)
        options.push([w.crashMidReady, () => cluster.readyEvent(cluster.pick(withReady), { isCrashing: true })]);
    }
    if (leader !== null && crashedCount < cluster.crashedMax) {
      // Killing the leader, the nemesis every consensus test starts with; in the middle of a
      // Ready when it has one, so that what it persisted and what it sent can differ.
      options.push([
        w.crashLeader,
        () => (leader.hasReady() ? cluster.readyEvent(leader, { isCrashing: true }) : cluster.crash(leader)),
      ]);
    }
    if (crashedCount > 0)
      options.push([w.restart, () => cluster.restart(cluster.pick(cluster.liveNodes().filter((n) => !n.isRunning)))]);
    if (!cluster.network.partition.isHealed) options.push([w.heal, () => cluster.heal()]);
    if (leader !== null) {
      options.push([w.confChange, () => cluster.changeMembership(leader)]);
      options.push([w.transferLeader, () => cluster.transferLeader(leader)]);
    }
    return options;
  }

  private runWeighted(options: readonly WeightedAction[]): void {
    let total = 0;
    for (const [weight] of options) total += weight;
    let draw = this.cluster.prng.nextFloat() * total;
    for (const [weight, action] of options) {
      draw -= weight;
      if (draw < 0) return action();
    }
    (options[options.length - 1] as WeightedAction)[1]();
  }

  /**
   * Leader churn: a newly elected leader is, with some probability, struck down a few events
   * into its term — crashed in the middle of a Ready, bounced, or cut off — before it has
   * replicated much. Quick successions of short-lived leaders with diverging log tails are what
   * Raft's commit rule (§5.4.2, Figure 8) exists for, and random faults alone rarely produce them.
   */
  private maybeScheduleLeaderStrike(): void {
    const leader = this.cluster.findLeader();
    if (leader === null) return;
    const key = `${leader.id}/${leader.status().term}`;
    if (key === this.lastLeaderKey) return;
    this.lastLeaderKey = key;
    const { prng } = this.cluster;
    if (this.leaderStrike === null && prng.nextFloat() < this.config.leaderChurnProbability) {
      this.leaderStrike = {
        leaderId: leader.id,
        term: leader.status().term,
        inEvents: prng.intBelow(prng.nextFloat() < 0.5 ? this.config.leaderStrikeDelayEventsMax : 300),
        isIsolating: false,
      };
    }
  }

  /**
   * The moment right after a leader advanced its commit index (and may have acknowledged
   * clients) is when losing it tests the most: whether what it committed survives it. The strike
   * cuts it off, which also drops what it still has in flight and reconnects everyone else.
   */
  private maybeStrikeAfterCommit(node: SimNode): void {
    if (this.cluster.isHealing || (this.leaderStrike !== null && this.leaderStrike.inEvents < 4)) return;
    const { prng } = this.cluster;
    if (prng.nextFloat() >= this.config.commitStrikeProbability) return;
    const term = node.durable.storage.initialState().hardState.term;
    this.leaderStrike = { leaderId: node.id, term, inEvents: prng.intBelow(4), isIsolating: true };
  }

  private strikeLeader(strike: LeaderStrike): void {
    const { cluster } = this;
    const node = cluster.nodes.get(strike.leaderId);
    if (node === undefined || !node.isRunning || node.isDecommissioned)
      return cluster.record(`strike ${strike.leaderId}: already down`);
    const status = node.status();
    if (status.role !== 'leader' || status.term !== strike.term)
      return cluster.record(`strike ${strike.leaderId}: no longer leader of term ${strike.term}`);
    const draw = strike.isIsolating ? 3 : cluster.prng.intBelow(4);
    if (draw === 0 && node.hasReady()) return cluster.readyEvent(node, { isCrashing: true });
    if (draw <= 1) return cluster.bounce(node);
    if (draw === 2 && cluster.crashedCount < cluster.crashedMax) return cluster.crash(node);
    cluster.isolate(strike.leaderId);
  }
}
