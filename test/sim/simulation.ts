import { SeededPrng } from '../../src/base/prng.js';
import { RaftqError } from '../../src/base/errors.js';
import { ProposalDroppedError } from '../../src/raft/errors.js';
import type { ConfChange, Entry, HardState, NodeId, RaftMessage, Ready } from '../../src/raft/types.js';
import { EntryType, MessageType } from '../../src/raft/types.js';
import { ClusterMonitor } from './cluster-monitor.js';
import { InvariantViolationError, type InvariantName } from './invariants/invariant-violation-error.js';
import { describeRaftMessage } from './message-format.js';
import { NetworkPartition, partitionShapes, randomPartition } from './network-partition.js';
import type { SimConfig } from './sim-config.js';
import { reliableNetwork, SimNetwork } from './sim-network.js';
import { emptyConfState, SimNode, type SimNodeObserver } from './sim-node.js';
import { decodeProposalValue, encodeProposalValue } from './sim-state-machine.js';
import { SimWorkload } from './sim-workload.js';
import { Trace } from './trace.js';

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

const noContext = new Uint8Array(0);
const utf8Decoder = new TextDecoder();
/** Events one drain may run before the next tick: a guard against a message storm that never settles. */
const drainEventsMax = 20_000;

/**
 * One deterministic run of a simulated cluster. Everything — scheduling, the network, every
 * node's randomized timeouts — draws from one SeededPrng made from the seed, and nothing reads
 * a clock, so a seed replays its run exactly. A run alternates chaos (random events: message
 * deliveries, Readies, ticks, proposals, reads, crashes, restarts, partitions, membership
 * changes, leadership transfers) with healing and a liveness check; invariants are checked
 * after every event.
 */
export class Simulation {
  private readonly prng: SeededPrng;
  private readonly network: SimNetwork;
  private readonly nodes = new Map<NodeId, SimNode>();
  private readonly monitor = new ClusterMonitor();
  private readonly workload = new SimWorkload();
  private readonly trace: Trace;
  /** Nodes whose removal some node has applied: committed, so the operator may stop them. */
  private readonly removedIds = new Set<NodeId>();
  private readonly observer: SimNodeObserver;
  private nextNodeId: number;
  private ticks = 0;
  /** Set by a tick: the next chaos event is a fault (crash, partition, membership change, ...). */
  private isNemesisDue = false;
  /** The last leader seen (id/term), and a pending strike against a new one (see strikeLeader). */
  private lastLeaderKey = '';
  private leaderStrike: { leaderId: NodeId; term: number; inEvents: number; isIsolating: boolean } | null = null;
  /** True while healing and checking liveness: no faults then. */
  private isHealing = false;
  /** Values proposed after healing, with the index they were acknowledged at. */
  private readonly probes = new Map<string, number | null>();

  constructor(
    readonly config: SimConfig,
    options: { isKeepingTrace: boolean } = { isKeepingTrace: false },
  ) {
    this.prng = new SeededPrng(config.seed);
    this.network = new SimNetwork(this.prng.fork(), config.network);
    this.trace = new Trace({ isKeepingLines: options.isKeepingTrace });
    this.nextNodeId = config.clusterSize + 1;
    this.observer = {
      beforePersist: (node, ready, producedBy) => this.monitor.beforePersist(node, ready, producedBy),
      afterPersist: (node, before, ready) => {
        this.monitor.afterPersist(node, before, ready);
        this.maybeStrikeAfterCommit(node, before);
      },
      send: (_node, message) => this.send(message),
      applied: (node, entry, appliedBefore) => {
        this.monitor.applied(node, entry, appliedBefore);
        this.maybeAcknowledge(node, entry);
      },
      restored: (node, snapshot) => this.monitor.restored(node, snapshot),
      confChangeApplied: (_node, change) => {
        if (change.kind === 'removeNode') this.removedIds.add(change.nodeId);
      },
      readState: (node, readState) => this.monitor.readState(node, readState, utf8Decoder.decode(readState.requestCtx)),
    };
  }

  run(): SimResult {
    let violation: SimViolation | null = null;
    try {
      this.bootstrap();
      for (let round = 1; round <= this.config.rounds; round++) {
        this.record(`round ${round}: chaos`);
        this.network.faults = this.config.network;
        for (let i = 0; i < this.config.chaosEventsPerRound; i++) this.chaosEvent();
        this.healAndCheckLiveness();
      }
    } catch (err) {
      violation = this.toViolation(err);
      this.trace.append(`violation of ${violation.invariant}: ${violation.message}`);
    }
    return {
      seed: this.config.seed,
      clusterSize: this.config.clusterSize,
      events: this.trace.events,
      ticks: this.ticks,
      acks: this.monitor.durability.ackCount,
      traceHash: this.trace.digest(),
      violation,
      traceLines: this.trace.lines(),
    };
  }

  private toViolation(err: unknown): SimViolation {
    const eventNumber = this.trace.events + 1;
    if (err instanceof InvariantViolationError) {
      return { seed: this.config.seed, eventNumber, invariant: err.invariant, message: err.detail };
    }
    const message = err instanceof Error ? `${err.name}: ${err.message}\n${(err.stack ?? '').split('\n').slice(1, 6).join('\n')}` : String(err);
    return { seed: this.config.seed, eventNumber, invariant: 'unexpectedError', message };
  }

  private record(line: string): void {
    this.trace.append(line);
  }

  /** After every event: the checks that look at the whole cluster. */
  private afterEvent(): void {
    this.monitor.observeLeaders(this.nodes.values());
  }

  private bootstrap(): void {
    const { config } = this;
    const voters: NodeId[] = [];
    for (let i = 1; i <= config.clusterSize; i++) voters.push(String(i));
    for (const id of voters) {
      const node = new SimNode(id, { voters, learners: [] }, config, this.observer);
      this.nodes.set(id, node);
      node.start(this.prng.fork());
    }
    const { network: n, raft: r } = config;
    this.record(
      `start seed=${config.seed} voters=${voters.join(',')} drop=${n.dropProbability} dup=${n.duplicateProbability} ` +
        `delay=${n.delayProbability}x${n.delayTicksMax} reorder=${n.reorderProbability} election=${r.electionTimeoutTicks} ` +
        `appendBytes=${r.appendBytesMax} inflight=${r.inflightMessagesMax} preVote=${r.preVote} checkQuorum=${r.checkQuorum} ` +
        `snapshotEvery=${config.snapshotThresholdEntries} durableStateMachine=${config.isStateMachineDurable}` +
        `${Object.keys(config.faults).length > 0 ? ` faults=${Object.keys(config.faults).join(',')}` : ''}`,
    );
  }

  // ---- the scheduler ---------------------------------------------------------------------

  /**
   * One event of the chaos phase. Traffic (deliveries, Readies, ticks, client requests) is drawn
   * by weight; faults come at a rate per tick instead, so that how often the cluster is hit does
   * not depend on how busy it is.
   */
  private chaosEvent(): void {
    if (this.leaderStrike !== null && this.leaderStrike.inEvents-- <= 0) {
      const { leaderId, term, isIsolating } = this.leaderStrike;
      this.leaderStrike = null;
      this.strikeLeader(leaderId, term, { isIsolating });
    } else if (this.isNemesisDue) {
      this.isNemesisDue = false;
      this.runWeighted(this.nemesisOptions());
    } else {
      this.runWeighted(this.trafficOptions());
    }
    this.afterEvent();
    this.maybeScheduleLeaderStrike();
  }

  /**
   * Leader churn: a newly elected leader is, with some probability, struck down a few events
   * into its term — crashed in the middle of a Ready or cut off — before it has replicated much.
   * Quick successions of short-lived leaders with diverging log tails are what Raft's commit
   * rule (§5.4.2, Figure 8) exists for, and random faults alone rarely produce them.
   */
  private maybeScheduleLeaderStrike(): void {
    const leader = this.findLeader();
    if (leader === null) return;
    const key = `${leader.id}/${leader.core.status().term}`;
    if (key === this.lastLeaderKey) return;
    this.lastLeaderKey = key;
    if (this.leaderStrike === null && this.prng.nextFloat() < this.config.leaderChurnProbability) {
      this.leaderStrike = {
        leaderId: leader.id,
        term: leader.core.status().term,
        inEvents: this.prng.intBelow(this.prng.nextFloat() < 0.5 ? this.config.leaderStrikeDelayEventsMax : 300),
        isIsolating: false,
      };
    }
  }

  /**
   * The moment right after a leader advanced its commit index (and may have acknowledged
   * clients) is when losing it tests the most: whether what it committed survives it. The strike
   * cuts it off, which also drops what it still has in flight and reconnects everyone else.
   */
  private maybeStrikeAfterCommit(node: SimNode, before: HardState): void {
    if (this.isHealing || node.role !== 'leader' || (this.leaderStrike !== null && this.leaderStrike.inEvents < 4)) return;
    const hs = node.durable.storage.initialState().hardState;
    if (hs.commit <= before.commit || this.prng.nextFloat() >= this.config.commitStrikeProbability) return;
    this.leaderStrike = { leaderId: node.id, term: hs.term, inEvents: this.prng.intBelow(4), isIsolating: true };
  }

  private strikeLeader(leaderId: NodeId, term: number, options: { isIsolating: boolean }): void {
    const node = this.nodes.get(leaderId);
    if (node === undefined || !node.isRunning || node.isDecommissioned) return this.record(`strike ${leaderId}: already down`);
    const status = node.core.status();
    if (status.role !== 'leader' || status.term !== term) return this.record(`strike ${leaderId}: no longer leader of term ${term}`);
    const draw = options.isIsolating ? 3 : this.prng.intBelow(4);
    if (draw === 0 && node.hasReady()) return this.readyEvent(node, { isCrashing: true });
    if (draw <= 1) {
      node.crash();
      this.workload.forgetPendingAt(node.id);
      node.start(this.prng.fork());
      this.monitor.restarted(node);
      return this.record(`bounce ${node.id}`);
    }
    const crashedMax = Math.max(1, Math.floor(this.config.clusterSize / 2));
    if (draw === 2 && this.liveNodes().filter((n) => !n.isRunning).length < crashedMax) return this.crash(node);
    const others = this.liveNodes().map((n) => n.id).filter((id) => id !== leaderId);
    this.network.partition = NetworkPartition.groups([[leaderId], others]);
    this.record(this.network.partition.description);
  }

  private trafficOptions(): [number, () => void][] {
    const w = this.config.eventWeights;
    const running = this.liveNodes().filter((n) => n.isRunning);
    const withReady = running.filter((n) => n.hasReady());
    const options: [number, () => void][] = [
      [
        w.tick,
        () => {
          this.tickAll();
          this.isNemesisDue = this.prng.nextFloat() < this.config.nemesisProbabilityPerTick;
        },
      ],
    ];
    // Deliveries and Readies weigh by how many are waiting, so that between two ticks (a tick is
    // tens of milliseconds) the cluster mostly keeps up with its traffic, as a real one does.
    if (this.network.deliverableCount > 0) options.push([w.deliver * this.network.deliverableCount, () => this.deliverNext()]);
    if (withReady.length > 0) options.push([w.ready * withReady.length, () => this.readyEvent(this.pick(withReady))]);
    if (running.length > 0) {
      options.push([w.propose, () => this.propose(running)]);
      options.push([w.read, () => this.read(running)]);
    }
    return options;
  }

  private nemesisOptions(): [number, () => void][] {
    const w = this.config.eventWeights;
    const running = this.liveNodes().filter((n) => n.isRunning);
    const crashed = this.liveNodes().filter((n) => !n.isRunning);
    const withReady = running.filter((n) => n.hasReady());
    const leader = this.findLeader();
    const crashedMax = Math.max(1, Math.floor(this.config.clusterSize / 2));
    const options: [number, () => void][] = [[w.partition, () => this.partition()]];
    if (crashed.length < crashedMax && running.length > 1) {
      options.push([w.crash, () => this.crash(this.pick(running))]);
      if (withReady.length > 0) options.push([w.crashMidReady, () => this.readyEvent(this.pick(withReady), { isCrashing: true })]);
    }
    if (leader !== null && crashed.length < crashedMax) {
      // Killing the leader, the nemesis every consensus test starts with; in the middle of a
      // Ready when it has one, so that what it persisted and what it sent can differ.
      options.push([w.crashLeader, () => (leader.hasReady() ? this.readyEvent(leader, { isCrashing: true }) : this.crash(leader))]);
    }
    if (crashed.length > 0) options.push([w.restart, () => this.restart(this.pick(crashed))]);
    if (!this.network.partition.isHealed) options.push([w.heal, () => this.heal()]);
    if (leader !== null) {
      options.push([w.confChange, () => this.changeMembership(leader)]);
      options.push([w.transferLeader, () => this.transferLeader(leader)]);
    }
    return options;
  }

  private runWeighted(options: readonly [number, () => void][]): void {
    let total = 0;
    for (const [weight] of options) total += weight;
    let draw = this.prng.nextFloat() * total;
    for (const [weight, action] of options) {
      draw -= weight;
      if (draw < 0) return action();
    }
    (options[options.length - 1] as [number, () => void])[1]();
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.prng.intBelow(items.length)] as T;
  }

  /** Nodes that exist and have not been stopped for good (running or crashed). */
  private liveNodes(): SimNode[] {
    return [...this.nodes.values()].filter((n) => !n.isDecommissioned);
  }

  private findLeader(): SimNode | null {
    let best: SimNode | null = null;
    let bestTerm = -1;
    for (const node of this.liveNodes()) {
      if (!node.isRunning) continue;
      const status = node.core.status();
      if (status.role === 'leader' && status.term > bestTerm) {
        best = node;
        bestTerm = status.term;
      }
    }
    return best;
  }

  // ---- events ----------------------------------------------------------------------------

  private send(message: RaftMessage): void {
    this.monitor.sent(message);
    this.network.send(message);
  }

  private deliverNext(): void {
    const next = this.network.takeNext();
    if (next === null) return;
    const { message: m, isLinkUp } = next;
    const description = `${m.from}→${m.to} ${describeRaftMessage(m)}`;
    const receiver = this.nodes.get(m.to);
    if (!isLinkUp || receiver === undefined || !receiver.isRunning || receiver.isDecommissioned) {
      this.record(`lose ${description} (${isLinkUp ? `${m.to} down` : 'cut'})`);
      this.reportLost(m);
      return;
    }
    this.record(`deliver ${description}`);
    try {
      receiver.core.step(m);
    } catch (err) {
      // A refusal (a forwarded proposal the leader cannot take) is an answer, not a fault.
      if (!(err instanceof RaftqError)) throw err;
    }
    const sender = this.nodes.get(m.from);
    if (m.type === MessageType.Snap && sender !== undefined && sender.isRunning) sender.core.reportSnapshot(m.to, 'finished');
  }

  /** The transport tells the sender what it would notice: a broken stream to that peer. */
  private reportLost(m: RaftMessage): void {
    const sender = this.nodes.get(m.from);
    if (sender === undefined || !sender.isRunning || sender.isDecommissioned) return;
    if (m.type === MessageType.Snap) sender.core.reportSnapshot(m.to, 'failure');
    if (m.type === MessageType.Snap || m.type === MessageType.App) sender.core.reportUnreachable(m.to);
  }

  private tickAll(): void {
    this.record('tick');
    this.ticks += 1;
    this.network.tick();
    for (const node of this.liveNodes()) if (node.isRunning) node.core.tick();
  }

  /**
   * Handles one Ready of `node`. When crashing, the node dies after one to three of the Ready's
   * steps; half of those crashes are bounces (a supervisor restarts the process at once), so that
   * the messages it sent just before dying reach its next incarnation.
   */
  private readyEvent(node: SimNode, options: { isCrashing?: boolean } = {}): void {
    const summary =
      options.isCrashing === true
        ? node.handleReady({ crashAfterSteps: 1 + this.prng.intBelow(3) })
        : node.handleReady({ chooseCrashAfterSteps: (ready) => this.maybeCrashOnVote(node, ready) });
    let line = `${summary.stepsDone.length < 4 ? 'crash-in-ready' : 'ready'} ${node.id}: ${summary.description}`;
    if (!node.isRunning) {
      this.workload.forgetPendingAt(node.id);
      if (this.prng.nextFloat() < 0.5) {
        node.start(this.prng.fork());
        this.monitor.restarted(node);
        line += '; restart';
      }
    } else this.monitor.observeDurable(node, 'after a Ready');
    if (node.isRunning && node.hasAppliedOwnRemoval) {
      // Flush what the removal produced (a removed leader hands over with TimeoutNow), then stop.
      for (let i = 0; i < 3 && node.hasReady(); i++) line += `; ${node.handleReady().description}`;
      this.decommission(node);
      line += `; stop ${node.id} (removed)`;
    }
    this.record(line);
  }

  /**
   * A Ready that changes a node's term or vote is where durability before sending matters most
   * (a vote sent and then forgotten is a second vote in the same term), so crashes there are
   * drawn more often than elsewhere.
   */
  private maybeCrashOnVote(node: SimNode, ready: Ready): number | undefined {
    if (this.isHealing || ready.hardState === null) return undefined;
    const before = node.durable.storage.initialState().hardState;
    if (ready.hardState.term === before.term && ready.hardState.vote === before.vote) return undefined;
    const crashedMax = Math.max(1, Math.floor(this.config.clusterSize / 2));
    if (this.liveNodes().filter((n) => !n.isRunning).length >= crashedMax) return undefined;
    return this.prng.nextFloat() < this.config.crashOnVoteProbability ? 1 + this.prng.intBelow(3) : undefined;
  }

  private decommission(node: SimNode): void {
    node.crash();
    node.isDecommissioned = true;
    this.workload.forgetPendingAt(node.id);
  }

  /**
   * A client sends a value to some node; a follower that knows the leader redirects it there
   * once (what the runtime's forwarding does).
   */
  private propose(running: readonly SimNode[]): void {
    let node = this.pick(running);
    const value = this.workload.newValue();
    const tried: NodeId[] = [];
    for (;;) {
      tried.push(node.id);
      try {
        node.core.propose(encodeProposalValue(value));
        this.workload.proposed(value, node.id);
        return this.record(`propose ${tried.join('→')} ${value}`);
      } catch (err) {
        if (!(err instanceof ProposalDroppedError)) throw err;
        const leader = err.reason === 'notLeader' && err.leaderId !== '' ? this.nodes.get(err.leaderId) : undefined;
        if (leader === undefined || !leader.isRunning || leader.isDecommissioned || tried.includes(leader.id)) {
          return this.record(`propose ${tried.join('→')} ${value} dropped (${err.reason})`);
        }
        node = leader;
      }
    }
  }

  private maybeAcknowledge(node: SimNode, entry: Entry): void {
    if (entry.type !== EntryType.Normal || entry.data.length === 0) return;
    const value = decodeProposalValue(entry.data);
    if (!this.workload.appliedAt(value, node.id)) return;
    this.monitor.durability.observeAck(value, entry.index, entry.term, node.core.status().term);
    if (this.probes.has(value)) this.probes.set(value, entry.index);
  }

  private read(running: readonly SimNode[]): void {
    const node = this.pick(running);
    const ctx = this.workload.newReadCtx(node.id);
    const required = this.monitor.durability.ackedIndexMax;
    try {
      node.core.readIndex(new TextEncoder().encode(ctx));
      this.monitor.linearizableReads.observeReadRequest(ctx, required);
      this.record(`read ${node.id} ${ctx} (needs i${required})`);
    } catch (err) {
      if (!(err instanceof RaftqError)) throw err;
      this.record(`read ${node.id} ${ctx} dropped (${err.code})`);
    }
  }

  private crash(node: SimNode): void {
    node.crash();
    this.workload.forgetPendingAt(node.id);
    this.record(`crash ${node.id}`);
  }

  private restart(node: SimNode): void {
    node.start(this.prng.fork());
    this.monitor.restarted(node);
    this.record(`restart ${node.id}`);
  }

  private partition(): void {
    const ids = this.liveNodes().map((n) => n.id);
    if (ids.length < 2) return this.record('partition skipped (one node)');
    const partition = randomPartition(this.prng, ids, this.pick(partitionShapes));
    this.network.partition = partition;
    this.record(partition.description);
  }

  private heal(): void {
    this.network.partition = NetworkPartition.none();
    this.record('heal');
  }

  /** One single-server step: promote a learner, add a new node as learner, or remove a member. */
  private changeMembership(leader: SimNode): void {
    const { confState } = leader.core.status();
    const choices: (() => ConfChange)[] = [];
    const learners = confState.learners.filter((id) => this.nodes.get(id)?.isDecommissioned === false);
    if (learners.length > 0) choices.push(() => ({ kind: 'addVoter', nodeId: this.pick(learners), context: noContext }));
    // A new node must get its configuration from a snapshot (it cannot replay the bootstrap
    // configuration from the log), so every voter must have compacted past index 0 first.
    const canAdd =
      confState.learners.length === 0 &&
      confState.voters.length <= this.config.clusterSize &&
      confState.voters.every((id) => (this.nodes.get(id)?.durable.snapshotIndex ?? 0) > 0);
    if (canAdd) choices.push(() => ({ kind: 'addLearner', nodeId: String(this.nextNodeId), context: noContext }));
    if (confState.voters.length > 3) {
      choices.push(() => ({ kind: 'removeNode', nodeId: this.prng.nextFloat() < 0.4 ? leader.id : this.pick(confState.voters), context: noContext }));
    }
    if (choices.length === 0) return this.record(`conf ${leader.id}: nothing to change`);
    const change = this.pick(choices)();
    const label = `conf ${leader.id}: ${change.kind} ${change.nodeId}`;
    try {
      leader.core.proposeConfChange(change);
    } catch (err) {
      if (!(err instanceof RaftqError)) throw err;
      return this.record(`${label} dropped (${err instanceof ProposalDroppedError ? err.reason : err.code})`);
    }
    if (change.kind === 'addLearner') {
      const node = new SimNode(change.nodeId, emptyConfState, this.config, this.observer);
      this.nodes.set(node.id, node);
      node.start(this.prng.fork());
      this.nextNodeId += 1;
    }
    this.record(label);
  }

  private transferLeader(leader: SimNode): void {
    const voters = leader.core.status().confState.voters.filter((id) => id !== leader.id);
    if (voters.length === 0) return this.record(`transfer ${leader.id}: no other voter`);
    const target = this.pick(voters);
    try {
      leader.core.transferLeader(target);
      this.record(`transfer ${leader.id}→${target}`);
    } catch (err) {
      if (!(err instanceof RaftqError)) throw err;
      this.record(`transfer ${leader.id}→${target} dropped (${err.code})`);
    }
  }

  // ---- healing and liveness --------------------------------------------------------------

  /**
   * Heal everything (partitions, crashed nodes, a lossy network), stop nodes whose removal is
   * committed, then require within `livenessTicksMax` ticks: one leader that every live member
   * follows, fresh proposals applied on every live member, and every acknowledged value too.
   */
  private healAndCheckLiveness(): void {
    this.isHealing = true;
    this.leaderStrike = null;
    this.network.partition = NetworkPartition.none();
    this.network.faults = reliableNetwork;
    this.record('heal all');
    for (const node of this.liveNodes()) {
      if (this.removedIds.has(node.id)) {
        this.decommission(node);
        this.record(`stop ${node.id} (removed)`);
      } else if (!node.isRunning) {
        this.restart(node);
      }
      this.afterEvent();
    }
    this.probes.clear();
    const startTick = this.ticks;
    let probeTick = -Infinity;
    for (;;) {
      this.drain();
      const members = this.liveMembersFollowingOneLeader();
      if (members !== null && this.isSettled(members)) break;
      if (this.ticks - startTick >= this.config.livenessTicksMax) {
        throw new InvariantViolationError('liveness', `${this.describeUnsettled(members)} ${this.config.livenessTicksMax} ticks after healing`);
      }
      const leader = members?.leader ?? null;
      const isProbeDue = this.ticks - probeTick >= 2 * this.config.raft.electionTimeoutTicks;
      if (leader !== null && isProbeDue && this.ackedProbeCount() < this.config.livenessProposals) {
        this.proposeProbe(leader);
        probeTick = this.ticks;
      }
      this.tickAll();
      this.afterEvent();
    }
    this.isHealing = false;
    this.record(`live: leader and ${this.config.livenessProposals} fresh proposals applied everywhere after ${this.ticks - startTick} ticks`);
  }

  private drain(): void {
    for (let i = 0; i < drainEventsMax; i++) {
      if (this.network.deliverableCount > 0) this.deliverNext();
      else {
        const node = this.liveNodes().find((n) => n.hasReady());
        if (node === undefined) return;
        this.readyEvent(node);
      }
      this.afterEvent();
    }
  }

  private proposeProbe(leader: SimNode): void {
    for (let i = 0; i < this.config.livenessProposals; i++) {
      const value = this.workload.newValue();
      try {
        leader.core.propose(encodeProposalValue(value));
        this.workload.proposed(value, leader.id);
        this.probes.set(value, null);
        this.record(`propose ${leader.id} ${value} (liveness)`);
      } catch (err) {
        if (!(err instanceof ProposalDroppedError)) throw err;
        this.record(`propose ${leader.id} ${value} (liveness) dropped (${err.reason})`);
      }
    }
  }

  private ackedProbeCount(): number {
    let count = 0;
    for (const index of this.probes.values()) if (index !== null) count += 1;
    return count;
  }

  /** The leader and the live members of its configuration, if they all follow it. */
  private liveMembersFollowingOneLeader(): { leader: SimNode; members: SimNode[] } | null {
    const leader = this.findLeader();
    if (leader === null) return null;
    const { confState } = leader.core.status();
    const members: SimNode[] = [];
    for (const id of [...confState.voters, ...confState.learners]) {
      const node = this.nodes.get(id);
      if (node === undefined || node.isDecommissioned) continue;
      if (!node.isRunning || node.core.status().leader !== leader.id) return null;
      members.push(node);
    }
    return { leader, members };
  }

  private isSettled(cluster: { leader: SimNode; members: SimNode[] }): boolean {
    if (this.ackedProbeCount() < this.config.livenessProposals) return false;
    let required = this.monitor.durability.ackedIndexMax;
    for (const index of this.probes.values()) if (index !== null) required = Math.max(required, index);
    if (!cluster.members.every((n) => n.stateMachine.appliedIndex >= required)) return false;
    for (const node of cluster.members) this.monitor.durability.checkMemberApplied(node.id, node.stateMachine);
    return true;
  }

  private describeUnsettled(cluster: { leader: SimNode; members: SimNode[] } | null): string {
    if (cluster === null) {
      const views = this.liveNodes().map((n) => {
        if (!n.isRunning) return `${n.id}:down`;
        const s = n.core.status();
        return `${n.id}:${s.role}/t${s.term}/leader=${s.leader || '-'}/voters=${s.confState.voters.join(',')}`;
      });
      return `no leader that every live member follows (${views.join(' ')})`;
    }
    const applied = cluster.members.map((n) => `${n.id}@${n.stateMachine.appliedIndex}`).join(' ');
    return `leader ${cluster.leader.id} but only ${this.ackedProbeCount()}/${this.config.livenessProposals} fresh proposals acknowledged, members applied ${applied}`;
  }
}
