import { RaftqError } from '../../src/base/errors.js';
import { SeededPrng } from '../../src/base/prng.js';
import { ProposalDroppedError } from '../../src/raft/errors.js';
import type { ConfChange, Entry, NodeId, RaftMessage, Ready } from '../../src/raft/types.js';
import { EntryType, MessageType } from '../../src/raft/types.js';
import { ClusterMonitor } from './cluster-monitor.js';
import { describeRaftMessage } from './message-format.js';
import { NetworkPartition, partitionShapes, randomPartition } from './network-partition.js';
import type { SimConfig } from './sim-config.js';
import { SimNetwork } from './sim-network.js';
import { emptyConfState, SimNode, type SimNodeObserver } from './sim-node.js';
import { decodeProposalValue, encodeProposalValue } from './sim-state-machine.js';
import { SimWorkload } from './sim-workload.js';
import { Trace } from './trace.js';

const noContext = new Uint8Array(0);
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * The simulated cluster and the events that can happen to it: its nodes, the network between
 * them, the clients, the invariant monitor and the trace. Every event appends one line to the
 * trace; what to do next is the business of the Simulation that drives it.
 */
export class SimCluster {
  readonly prng: SeededPrng;
  readonly network: SimNetwork;
  readonly nodes = new Map<NodeId, SimNode>();
  readonly monitor = new ClusterMonitor();
  readonly workload = new SimWorkload();
  readonly trace: Trace;
  /** Nodes whose removal some node has applied: committed, so the operator may stop them. */
  readonly removedIds = new Set<NodeId>();
  /** Values whose acknowledgement someone waits for, with the index they were acknowledged at. */
  readonly watchedValues = new Map<string, number | null>();
  /** True while healing and checking liveness: no faults then. */
  isHealing = false;
  ticks = 0;
  /** Called after a leader persisted a Ready that advanced its commit index. */
  onLeaderCommitted: (node: SimNode) => void = () => {};
  private readonly observer: SimNodeObserver;
  private nextNodeId: number;

  constructor(
    readonly config: SimConfig,
    options: { isKeepingTrace: boolean },
  ) {
    this.prng = new SeededPrng(config.seed);
    this.network = new SimNetwork(this.prng.fork(), config.network);
    this.trace = new Trace({ isKeepingLines: options.isKeepingTrace });
    this.nextNodeId = config.clusterSize + 1;
    this.observer = {
      beforePersist: (node, ready, producedBy) => this.monitor.beforePersist(node, ready, producedBy),
      afterPersist: (node, before, ready) => {
        this.monitor.afterPersist(node, before, ready);
        if (node.role === 'leader' && node.durable.storage.initialState().hardState.commit > before.commit)
          this.onLeaderCommitted(node);
      },
      send: (_node, message) => {
        this.monitor.sent(message);
        this.network.send(message);
      },
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

  record(line: string): void {
    this.trace.append(line);
  }

  /** True while the checks after an event run: a violation then belongs to the event just recorded. */
  isCheckingAfterEvent = false;

  /** After every event: the checks that look at the whole cluster. */
  afterEvent(): void {
    this.isCheckingAfterEvent = true;
    this.monitor.observeLeaders(this.nodes.values());
    this.isCheckingAfterEvent = false;
  }

  bootstrap(): void {
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

  pick<T>(items: readonly T[]): T {
    return items[this.prng.intBelow(items.length)] as T;
  }

  /** Nodes that exist and have not been stopped for good (running or crashed). */
  liveNodes(): SimNode[] {
    return [...this.nodes.values()].filter((n) => !n.isDecommissioned);
  }

  /** How many nodes may be down at once: a minority of the initial cluster (at least one). */
  get crashedMax(): number {
    return Math.max(1, Math.floor(this.config.clusterSize / 2));
  }

  get crashedCount(): number {
    return this.liveNodes().filter((n) => !n.isRunning).length;
  }

  /** The running node that believes it leads the highest term, if any. */
  findLeader(): SimNode | null {
    let best: SimNode | null = null;
    let bestTerm = -1;
    for (const node of this.liveNodes()) {
      if (!node.isRunning) continue;
      const status = node.status();
      if (status.role === 'leader' && status.term > bestTerm) {
        best = node;
        bestTerm = status.term;
      }
    }
    return best;
  }

  // ---- network and time ------------------------------------------------------------------

  /** Whether messages to `nodeId` can be taken off the network now: not while it is paused. */
  readonly isListening = (nodeId: NodeId): boolean => this.nodes.get(nodeId)?.pausedUntilTick == null;

  deliverNext(): void {
    const next = this.network.takeNext(this.isListening);
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
    if (m.type === MessageType.Snap && sender !== undefined && sender.isRunning)
      sender.core.reportSnapshot(m.to, 'finished');
  }

  /** The transport tells the sender what it would notice: a broken stream to that peer. */
  private reportLost(m: RaftMessage): void {
    const sender = this.nodes.get(m.from);
    if (sender === undefined || !sender.isRunning || sender.isDecommissioned) return;
    if (m.type === MessageType.Snap) sender.core.reportSnapshot(m.to, 'failure');
    if (m.type === MessageType.Snap || m.type === MessageType.App) sender.core.reportUnreachable(m.to);
  }

  tickAll(): void {
    this.ticks += 1;
    this.network.tick();
    const resumed: NodeId[] = [];
    for (const node of this.liveNodes()) {
      if (node.pausedUntilTick !== null && node.pausedUntilTick <= this.ticks) {
        node.pausedUntilTick = null;
        resumed.push(node.id);
      }
      if (node.isAvailable) node.core.tick();
    }
    this.record(resumed.length === 0 ? 'tick' : `tick; resume ${resumed.join(',')}`);
  }

  /** The process stops for a while and then carries on as if nothing happened (Jepsen's pause). */
  pause(node: SimNode, ticks: number): void {
    node.pausedUntilTick = this.ticks + ticks;
    this.record(`pause ${node.id} for ${ticks} ticks`);
  }

  resumeAll(): void {
    for (const node of this.liveNodes()) {
      if (node.pausedUntilTick === null) continue;
      node.pausedUntilTick = null;
      this.record(`resume ${node.id}`);
    }
  }

  partition(): void {
    const ids = this.liveNodes().map((n) => n.id);
    if (ids.length < 2) return this.record('partition skipped (one node)');
    const partition = randomPartition(this.prng, ids, this.pick(partitionShapes));
    this.network.partition = partition;
    this.record(partition.description);
  }

  isolate(nodeId: NodeId): void {
    const others = this.liveNodes()
      .map((n) => n.id)
      .filter((id) => id !== nodeId);
    this.network.partition = NetworkPartition.groups([[nodeId], others]);
    this.record(this.network.partition.description);
  }

  heal(): void {
    this.network.partition = NetworkPartition.none();
    this.record('heal');
  }

  // ---- node lifecycle --------------------------------------------------------------------

  /**
   * Handles one Ready of `node`. When crashing, the node dies after one to three of the Ready's
   * steps; half of those crashes are bounces (a supervisor restarts the process at once), so that
   * the messages it sent just before dying reach its next incarnation.
   */
  readyEvent(node: SimNode, options: { isCrashing?: boolean } = {}): void {
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
    if (this.crashedCount >= this.crashedMax) return undefined;
    return this.prng.nextFloat() < this.config.crashOnVoteProbability ? 1 + this.prng.intBelow(3) : undefined;
  }

  crash(node: SimNode): void {
    node.crash();
    this.workload.forgetPendingAt(node.id);
    this.record(`crash ${node.id}`);
  }

  restart(node: SimNode): void {
    node.start(this.prng.fork());
    this.monitor.restarted(node);
    this.record(`restart ${node.id}`);
  }

  /** A crash and an immediate restart, as a process supervisor would do. */
  bounce(node: SimNode): void {
    node.crash();
    this.workload.forgetPendingAt(node.id);
    node.start(this.prng.fork());
    this.monitor.restarted(node);
    this.record(`bounce ${node.id}`);
  }

  /** Stops a node for good: the operator's answer to its removal from the cluster. */
  decommission(node: SimNode): void {
    node.crash();
    node.isDecommissioned = true;
    this.workload.forgetPendingAt(node.id);
  }

  // ---- clients ---------------------------------------------------------------------------

  /**
   * A client sends a value to some node; a follower that knows the leader redirects it there
   * once (what the runtime's forwarding does).
   */
  propose(first: SimNode, options: { label?: string } = {}): string {
    let node = first;
    const value = this.workload.newValue();
    const suffix = options.label === undefined ? '' : ` (${options.label})`;
    const tried: NodeId[] = [];
    for (;;) {
      tried.push(node.id);
      try {
        node.core.propose(encodeProposalValue(value));
        this.workload.proposed(value, node.id);
        this.record(`propose ${tried.join('→')} ${value}${suffix}`);
        return value;
      } catch (err) {
        if (!(err instanceof ProposalDroppedError)) throw err;
        const leader = err.reason === 'notLeader' && err.leaderId !== '' ? this.nodes.get(err.leaderId) : undefined;
        if (leader === undefined || !leader.isAvailable || leader.isDecommissioned || tried.includes(leader.id)) {
          this.record(`propose ${tried.join('→')} ${value}${suffix} dropped (${err.reason})`);
          return value;
        }
        node = leader;
      }
    }
  }

  private maybeAcknowledge(node: SimNode, entry: Entry): void {
    if (entry.type !== EntryType.Normal || entry.data.length === 0) return;
    const value = decodeProposalValue(entry.data);
    if (!this.workload.appliedAt(value, node.id)) return;
    this.monitor.durability.observeAck(value, entry.index, entry.term, node.status().term);
    if (this.watchedValues.has(value)) this.watchedValues.set(value, entry.index);
  }

  read(node: SimNode): void {
    const ctx = this.workload.newReadCtx(node.id);
    const required = this.monitor.durability.ackedIndexMax;
    try {
      node.core.readIndex(utf8Encoder.encode(ctx));
      this.monitor.linearizableReads.observeReadRequest(ctx, required);
      this.record(`read ${node.id} ${ctx} (needs i${required})`);
    } catch (err) {
      if (!(err instanceof RaftqError)) throw err;
      this.record(`read ${node.id} ${ctx} dropped (${err.code})`);
    }
  }

  // ---- membership and leadership ---------------------------------------------------------

  /** One single-server step: promote a learner, add a new node as learner, or remove a member. */
  changeMembership(leader: SimNode): void {
    const { confState } = leader.status();
    const choices: (() => ConfChange)[] = [];
    const learners = confState.learners.filter((id) => this.nodes.get(id)?.isDecommissioned === false);
    if (learners.length > 0)
      choices.push(() => ({ kind: 'addVoter', nodeId: this.pick(learners), context: noContext }));
    // A new node must get its configuration from a snapshot (it cannot replay the bootstrap
    // configuration from the log), so every voter must have compacted past index 0 first.
    const canAdd =
      confState.learners.length === 0 &&
      confState.voters.length <= this.config.clusterSize &&
      confState.voters.every((id) => (this.nodes.get(id)?.durable.snapshotIndex ?? 0) > 0);
    if (canAdd) choices.push(() => ({ kind: 'addLearner', nodeId: String(this.nextNodeId), context: noContext }));
    if (confState.voters.length > 3) {
      choices.push(() => ({
        kind: 'removeNode',
        nodeId: this.prng.nextFloat() < 0.4 ? leader.id : this.pick(confState.voters),
        context: noContext,
      }));
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

  transferLeader(leader: SimNode): void {
    const voters = leader.status().confState.voters.filter((id) => id !== leader.id);
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
}
