/**
 * One node of a raftq cluster: the Raft core driven over a durable log, a gRPC transport and the
 * MVCC state. The Ready loop is the heart of it, and it runs one step at a time:
 *
 *   propose what clients queued (many transactions per entry) → while the core has a Ready:
 *   install a received snapshot → persist hard state and entries (one synced batch) → send →
 *   apply committed entries (applied index in the same state batch) → answer reads → advance.
 *
 * Nothing is sent before what it depends on is durable, and everything that changes the log or
 * the state (snapshots, conf change proposals, compaction) runs as a task of this loop, so no two
 * of them ever interleave. Messages from peers and ticks are fed to the core as they arrive
 * (RawNode allows it between ready() and advance()).
 *
 * This file holds the loop, the lifecycle and the wiring; each step's work lives in its own file:
 * start-up recovery (node-stores.ts), who leads (leader-watch.ts), proposing (entry-proposer.ts),
 * applying (committed-entry-applier.ts), snapshots (snapshot-taker.ts, snapshot-sender.ts,
 * snapshot-receiver.ts), reads (read-index-reader.ts), status and gauges (node-status-reporter.ts),
 * calls from peers (node-transport-handlers.ts), background work (garbage-collection-scheduler.ts,
 * leader-clock-sampler.ts).
 */
import type { Logger } from 'pino';
import { SystemClock, type Clock } from '../base/clock.js';
import { raftLimits } from '../base/limits.js';
import { SystemScheduler, type Scheduler } from '../base/scheduler.js';
import type { RawNode } from '../raft/raw-node.js';
import { MessageType, type ConfChange, type ConfState, type Entry, type RaftMessage, type Ready, type SoftState } from '../raft/types.js';
import type { ReadView, Txn, TxnExecutor, TxnOutcome, TxnWrite } from '../storage/txn.js';
import { ClusterClock } from './cluster-clock.js';
import { CommittedEntryApplier } from './committed-entry-applier.js';
import { EntryProposer } from './entry-proposer.js';
import { NodeStoppingError, NotLeaderError, ReadIndexTimeoutError } from './errors.js';
import { GarbageCollectionScheduler } from './garbage-collection-scheduler.js';
import { GrpcTransport } from './grpc-transport.js';
import type { LevelLogStore, Membership } from './level-log-store.js';
import { LeaderClockSampler } from './leader-clock-sampler.js';
import { LeaderWatch } from './leader-watch.js';
import { MembershipAdmin } from './membership-admin.js';
import type { NodeConfig } from './node-config.js';
import { NodeMetrics } from './node-metrics.js';
import { openNodeStores } from './node-stores.js';
import { dataDirStorage, type NodeStorage } from './node-storage.js';
import type { NodeTransport, NodeTransportFactory } from './node-transport.js';
import { NodeStatusReporter, type NodeRole, type NodeStatus } from './node-status-reporter.js';
import { nodeTransportHandlers } from './node-transport-handlers.js';
import { NotMemberError } from './not-member-error.js';
import { OpStreamClient, type OpAnswer, type OpCallOptions } from './op-stream-client.js';
import { OpStreamServer, type OpHandler } from './op-stream-server.js';
import { ReadIndexReader } from './read-index-reader.js';
import { SnapshotReceiver } from './snapshot-receiver.js';
import { SnapshotSender } from './snapshot-sender.js';
import { SnapshotTaker } from './snapshot-taker.js';
import type { StateObserver } from './state-observer.js';
import type { StateStore } from './state-store.js';
import { TailRepairGuard } from './tail-repair-guard.js';
import { TxnCommitter } from './txn-committer.js';
import { AppliedIndexWaiters, TxnWaiters, type AppliedTxn } from './txn-waiters.js';
import { loadTlsFiles } from './transport-security.js';

export type { MemberStatus, NodeRole, NodeStatus } from './node-status-reporter.js';
export { nodeCapabilities } from './node-status-reporter.js';

export interface ClusterNodeOptions {
  readonly config: NodeConfig;
  readonly logger: Logger;
  readonly wallClock?: Clock;
  /** Called when the node hits an error it cannot continue from (a failed disk write): exit. */
  readonly onFatal?: (error: unknown) => void;
  /** Process-wide metrics (event loop, memory) on /metrics; default true. Off for a node embedded in a test process. */
  readonly isProcessMetricsOn?: boolean;
  /** What the node does I/O and keeps time through; each part defaults to the production one. The simulator replaces them all. */
  readonly runtime?: NodeRuntime;
}

/** The node's I/O and time, injected (test/sim-node wires simulated ones). */
export interface NodeRuntime {
  /** Starts the transport to peers; default GrpcTransport.start. */
  readonly transport?: NodeTransportFactory;
  /** The Ready loop's tick and the background timers; default the host's timers. */
  readonly scheduler?: Scheduler;
  /** Draws in [0, 1) for reconnect jitter and the seed of the core's election timeouts; default Math.random. */
  readonly random?: () => number;
  /** Where the Raft log and the state live; default LevelDB under config.dataDir. */
  readonly storage?: NodeStorage;
  /** Deliberate faults, for the whole-node simulator only; default none. Production never sets them. */
  readonly faults?: NodeFaults;
}

/** Deliberate faults of the runtime (test/sim-node proves its checkers with them). */
export interface NodeFaults {
  /** The core hands out entries for applying once persisted here, before they commit. */
  readonly applyBeforeCommit?: boolean;
  /** Snapshots compact the log without flushing the applied state first. */
  readonly compactPastFlush?: boolean;
}

type LoopTask = () => Promise<void> | void;

/** Leadership moved while a proposal waited; the committer retries it with the new leader. */
export class LeadershipLostError extends Error {
  constructor(readonly txnId: string) {
    super(`Leadership moved while txn ${txnId} was pending`);
    this.name = 'LeadershipLostError';
  }
}

export class ClusterNode implements TxnExecutor {
  readonly metrics: NodeMetrics;
  readonly clock: ClusterClock;
  readonly committer: TxnCommitter;
  readonly membershipAdmin: MembershipAdmin;
  /** Runs the operations followers forward here (op-stream-server.ts). */
  readonly opServer: OpStreamServer;
  private readonly opClient: OpStreamClient;
  private transport!: NodeTransport;
  private readonly txnWaiters = new TxnWaiters();
  private readonly appliedWaiters: AppliedIndexWaiters;
  private readonly leadership: LeaderWatch;
  private readonly stateObservers = new Set<StateObserver>();
  private readonly proposer: EntryProposer;
  private readonly applier: CommittedEntryApplier;
  private readonly reads: ReadIndexReader;
  private readonly snapshotSender: SnapshotSender;
  private readonly snapshotReceiver: SnapshotReceiver;
  private readonly reporter: NodeStatusReporter;
  private readonly garbageCollection: GarbageCollectionScheduler;
  private readonly snapshotTaker: SnapshotTaker;
  private readonly clockSampler: LeaderClockSampler;
  private readonly loopTasks: LoopTask[] = [];
  private timers: Array<() => void> = [];
  private wake: (() => void) | null = null;
  private isKicked = false;
  private isLoopRunning = false;
  private loopDone: Promise<void> = Promise.resolve();
  private isStoppingValue = false;
  private ticksSincePromotionCheck = 0;
  private readonly tailRepairGuard: TailRepairGuard;

  private constructor(
    readonly config: NodeConfig,
    readonly logger: Logger,
    private readonly logStore: LevelLogStore,
    private state: StateStore,
    private readonly raw: RawNode,
    wallClock: Clock,
    private readonly onFatal: (error: unknown) => void,
    nodeMetrics: NodeMetrics,
    private readonly runtime: Required<NodeRuntime>,
  ) {
    this.metrics = nodeMetrics;
    this.clock = new ClusterClock(wallClock);
    this.tailRepairGuard = new TailRepairGuard(logStore.tailRepair, config.electionTimeoutTicks * 2);
    this.appliedWaiters = new AppliedIndexWaiters(() => this.state.appliedIndex);
    const { metrics, txnWaiters, appliedWaiters } = this;
    const nodeId = config.id;
    const groupId = config.groupId;
    const currentState = (): StateStore => this.state;
    const currentTransport = (): NodeTransport => this.transport;
    const isStopping = (): boolean => this.isStoppingValue;
    const kick = (): void => this.kick();
    const refreshPeers = (): void => this.refreshPeers();
    this.leadership = new LeaderWatch({ nodeId, isStopping });
    this.proposer = new EntryProposer({ nodeId, metrics, clock: this.clock, raw, logStore, state: currentState, txnWaiters });
    this.applier = new CommittedEntryApplier({
      nodeId, logger, metrics, raw, logStore, state: currentState, txnWaiters, appliedWaiters, stateObservers: this.stateObservers, refreshPeers,
      notifyMembershipListeners: () => this.leadership.notify(),
    });
    this.reads = new ReadIndexReader({
      nodeId, groupId, metrics, raw, transport: currentTransport, kick,
      waitForLeader: (timeoutMs) => this.waitForLeader(timeoutMs),
      leaderHint: () => this.leadership.leader,
    });
    this.snapshotSender = new SnapshotSender({
      groupId, logger, metrics, logStore, state: currentState, transport: currentTransport,
      reportSnapshot: (peerId, status) => void this.runInLoop(() => this.raw.reportSnapshot(peerId, status)).catch(() => undefined),
    });
    this.snapshotReceiver = new SnapshotReceiver({
      stateDir: runtime.storage.stateDir, groupId, logger, metrics, logStore, isStopping, kick, state: currentState, refreshPeers, appliedWaiters,
      step: (message) => this.raw.step(message),
      adoptState: (state) => {
        this.state = state;
        for (const observer of this.stateObservers) observer.onStateOpened(state);
      },
    });
    this.reporter = new NodeStatusReporter({ config, metrics, clock: this.clock, raw, logStore, state: currentState, transport: currentTransport, tailRepairGuard: this.tailRepairGuard });
    this.garbageCollection = new GarbageCollectionScheduler({ logger, state: currentState, isStopping, runInLoop: (task) => this.runInLoop(task) });
    this.snapshotTaker = new SnapshotTaker({ config, logger, metrics, logStore, state: currentState, isFlushSkipped: runtime.faults.compactPastFlush === true });
    this.clockSampler = new LeaderClockSampler({ nodeId, groupId, clock: this.clock, transport: currentTransport, isStopping, leaderId: () => this.leadership.leader });
    this.committer = new TxnCommitter(this);
    this.opServer = new OpStreamServer({ groupId, metrics, isStopping, isLeader: () => this.leadership.isLeader, leaderHint: () => this.leadership.leader });
    this.opClient = new OpStreamClient({ groupId, open: (peerId) => this.transport.openOpStream(peerId) });
    this.membershipAdmin = new MembershipAdmin(this);
  }

  /** Opens the log and state under config.dataDir (finishing an interrupted snapshot install) and starts the node. */
  static async open(options: ClusterNodeOptions): Promise<ClusterNode> {
    const { config, logger } = options;
    const random = options.runtime?.random ?? Math.random;
    const storage = options.runtime?.storage ?? dataDirStorage(config.dataDir);
    const faults = options.runtime?.faults ?? {};
    const runtime = { transport: options.runtime?.transport ?? GrpcTransport.start, scheduler: options.runtime?.scheduler ?? new SystemScheduler(), random, storage, faults };
    const { logStore, state, raw } = await openNodeStores(config, logger, { storage, prngSeed: Math.floor(random() * 2 ** 31), ...(faults.applyBeforeCommit === true ? { raftFaults: { applyBeforeCommit: true } } : {}) });
    const node = new ClusterNode(config, logger, logStore, state, raw, options.wallClock ?? new SystemClock(), options.onFatal ?? (() => process.exit(1)), new NodeMetrics({ isProcessMetricsOn: options.isProcessMetricsOn ?? true }), runtime);
    await node.start();
    return node;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  private async start(): Promise<void> {
    const { config } = this;
    if (config.clusterSecret === '' && Object.keys(config.peers).length > 1) {
      this.logger.warn('no cluster secret: inter-node calls are not authenticated (set --cluster-secret)');
    }
    this.transport = await this.runtime.transport({
      selfId: config.id,
      groupId: config.groupId,
      listenAddress: config.raftListen,
      security: { clusterSecret: config.clusterSecret, tls: config.tls === null ? null : loadTlsFiles(config.tls) },
      handlers: nodeTransportHandlers(this, {
        stepFromPeer: (message) => this.stepFromPeer(message),
        reportUnreachable: (peerId) => {
          if (this.isLoopRunning) this.raw.reportUnreachable(peerId);
        },
        receiveSnapshot: (chunks, fromId) => this.snapshotReceiver.receive(chunks, fromId),
        localReadIndex: (timeoutMs) => this.reads.localReadIndex(timeoutMs),
      }),
      logger: this.logger,
      jitter: this.runtime.random,
    });
    this.refreshPeers();
    const membership = this.logStore.currentMembership();
    this.logger.info(
      { id: config.id, raftPort: this.transport.port, appliedIndex: this.state.appliedIndex, lastIndex: this.logStore.lastIndex(), voters: membership.confState.voters, learners: membership.confState.learners },
      'node started',
    );
    this.reportTailRepair();
    if (!this.isMember()) this.logger.warn({ id: config.id }, 'this node is not a member of the cluster yet: it answers every request with a retryable error until a member adds it (raftq members add)');
    this.isLoopRunning = true;
    this.loopDone = this.runLoop();
    const { scheduler } = this.runtime;
    this.timers.push(scheduler.every(config.tickMs, () => this.onTick()));
    this.timers.push(scheduler.every(raftLimits.clockSampleIntervalMs.value, () => void this.clockSampler.sample()));
    this.timers.push(scheduler.every(500, () => this.garbageCollection.maybeSchedule()));
    // A lone voter need not wait out an election timeout to lead its one-node cluster.
    if (membership.confState.voters.length === 1 && membership.confState.voters[0] === config.id) {
      this.runInLoop(() => this.raw.campaign());
    }
  }

  get raftPort(): number {
    return this.transport.port;
  }

  get isStopping(): boolean {
    return this.isStoppingValue;
  }

  /**
   * Graceful stop: refuse new work, let in-flight commits finish, hand leadership to the most
   * caught-up voter, then close everything. Bounded by raftLimits.shutdownDrainMs.
   */
  async stop(options: { transferLeadership: boolean } = { transferLeadership: true }): Promise<void> {
    if (this.isStoppingValue) return;
    this.isStoppingValue = true;
    const deadlineMs = Date.now() + raftLimits.shutdownDrainMs.value;
    await this.committer.drain(deadlineMs);
    if (options.transferLeadership && this.leadership.isLeader) {
      await this.membershipAdmin.handOffLeadership(deadlineMs).catch((error: unknown) => this.logger.warn({ err: error }, 'could not hand leadership over before stopping'));
    }
    await this.close();
  }

  /** Stops at once, without draining or handing over (tests, fatal errors). */
  async close(): Promise<void> {
    this.isStoppingValue = true;
    for (const cancel of this.timers) cancel();
    this.timers = [];
    this.isLoopRunning = false;
    this.kick();
    await this.loopDone;
    const stopped = new NodeStoppingError(this.config.id);
    this.txnWaiters.rejectAll(() => stopped);
    this.reads.failAll(stopped);
    this.opServer.setHandler(null);
    this.opClient.close();
    await this.transport.close();
    await this.state.close().catch(() => undefined);
    await this.logStore.close().catch(() => undefined);
    this.logger.info({ id: this.config.id }, 'node stopped');
  }

  // ---- the Ready loop --------------------------------------------------------------------

  private kick(): void {
    const wake = this.wake;
    if (wake !== null) {
      this.wake = null;
      wake();
    } else {
      this.isKicked = true;
    }
  }

  /** Runs `task` inside the loop, between two Readys; resolves with its result. */
  runInLoop<T>(task: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.loopTasks.push(async () => {
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      });
      this.kick();
    });
  }

  private async runLoop(): Promise<void> {
    try {
      while (this.isLoopRunning) {
        if (!this.isKicked) await new Promise<void>((resolve) => (this.wake = resolve));
        this.isKicked = false;
        if (!this.isLoopRunning) break;
        for (const task of this.loopTasks.splice(0)) await task();
        this.snapshotReceiver.stepPending();
        this.proposer.proposeQueued();
        this.reads.issueRounds();
        while (this.raw.hasReady()) {
          const ready = this.raw.ready();
          await this.handleReady(ready);
          this.raw.advance(ready);
        }
        this.snapshotReceiver.finishStep();
        this.reporter.updateGauges();
      }
    } catch (error) {
      this.logger.fatal({ err: error }, 'the Ready loop failed; stopping the node');
      this.isLoopRunning = false;
      this.onFatal(error);
    }
  }

  private reportTailRepair(): void {
    const repair = this.logStore.tailRepair;
    if (repair === null) return;
    const voters = this.logStore.currentMembership().confState.voters;
    if (voters.length === 1 && voters[0] === this.config.id) {
      this.tailRepairGuard.waive();
      this.logger.error({ repair }, 'the Raft log tail was damaged; as the only voter this node has no peer to repair it from and goes on with what it kept');
      return;
    }
    this.logger.error({ repair }, 'the Raft log tail was damaged: cut back to what can be trusted; repairing from the leader, neither voting nor campaigning until caught up');
  }

  private onTick(): void {
    if (this.tailRepairGuard.tick()) this.raw.tick();
    if (this.tailRepairGuard.maybeFinish({ lastIndex: this.logStore.lastIndex(), leader: this.leadership.leader })) {
      this.logger.info({ lastIndex: this.logStore.lastIndex(), leaderCommitIndexSeen: this.tailRepairGuard.leaderCommitIndexSeen }, 'the Raft log tail is repaired: voting again');
    }
    if (++this.ticksSincePromotionCheck >= 5) {
      this.ticksSincePromotionCheck = 0;
      if (this.leadership.isLeader) this.runInLoop(() => this.membershipAdmin.maybePromoteLearner()).catch(() => undefined);
    }
    this.kick();
  }

  private async handleReady(ready: Ready): Promise<void> {
    if (ready.softState !== null) this.onSoftState(ready.softState);
    if (ready.snapshot !== null) await this.snapshotReceiver.install(ready.snapshot);
    // A leader's appends do not depend on its own copy of the entries being durable (Raft thesis
    // §10.2.1: the leader counts itself only once its write is done), so they leave before the
    // fsync and the leader's write overlaps the followers'. Everything else waits for it: votes,
    // and anything sent in a Ready that changes the term or the vote.
    const persisted = this.logStore.currentHardState();
    const isTermSettled = ready.hardState === null || (ready.hardState.term === persisted.term && ready.hardState.vote === persisted.vote);
    const isEarlySendAllowed = this.leadership.isLeader && isTermSettled;
    const isEarly = (message: RaftMessage): boolean => isEarlySendAllowed && (message.type === MessageType.App || message.type === MessageType.Heartbeat);
    for (const message of ready.messages) if (isEarly(message)) this.send(message);
    if (ready.hardState !== null || ready.entries.length > 0) {
      const startedAt = performance.now();
      if (await this.logStore.persist(ready.hardState, ready.entries)) {
        this.metrics.fsyncs.inc();
        this.metrics.fsyncSeconds.observe((performance.now() - startedAt) / 1000);
      }
    }
    for (const message of ready.messages) if (!isEarly(message)) this.send(message);
    if (ready.committedEntries.length > 0) {
      const startedAt = performance.now();
      await this.applier.applyCommitted(ready.committedEntries);
      this.metrics.applySeconds.observe((performance.now() - startedAt) / 1000);
      await this.snapshotTaker.maybeSnapshot(ready.committedEntries[ready.committedEntries.length - 1] as Entry);
    }
    for (const readState of ready.readStates) this.reads.complete(readState.requestCtx, readState.index);
  }

  private onSoftState(softState: SoftState): void {
    const previous = this.leadership.update(softState);
    const term = this.raw.status().term;
    if (softState.role === 'leader' && previous.role !== 'leader') {
      this.clock.becomeReference();
      this.proposer.continueStamps();
      this.logger.info({ term }, 'became leader');
    } else if (softState.leader !== previous.leader) {
      this.clock.forgetSamples();
      if (softState.leader === '') this.logger.info({ term, role: softState.role }, 'lost the leader');
      else this.logger.info({ term, leader: softState.leader }, 'following a new leader');
    }
    if (previous.role === 'leader' && softState.role !== 'leader') {
      this.logger.info({ term }, 'stepped down as leader');
      this.txnWaiters.rejectAll((txnId) => new LeadershipLostError(txnId));
      this.opServer.steppedDown();
      this.reads.failAll(new NotLeaderError(this.config.id, softState.leader));
    }
    this.leadership.notify();
  }

  private send(message: RaftMessage): void {
    if (message.type === MessageType.Snap) {
      this.snapshotSender.send(message);
      return;
    }
    this.transport.sendRaft(message);
  }

  /** Points the transport at every member but this node; --peers addresses win over announced ones. */
  private refreshPeers(): void {
    const membership = this.logStore.currentMembership();
    const members = new Set([...membership.confState.voters, ...membership.confState.learners]);
    for (const id of Object.keys(this.config.peers)) members.add(id);
    members.delete(this.config.id);
    for (const id of members) {
      const address = this.config.peers[id] ?? membership.addresses[id];
      if (address !== undefined) this.transport.setPeer(id, address);
    }
    for (const id of this.transport.peerIds()) if (!members.has(id)) this.transport.removePeer(id);
  }

  // ---- proposals and snapshots ------------------------------------------------------------

  /** Queues a transaction for the next entry; resolves once applied here. Leader only. */
  proposeLocally(txn: Txn): { promise: Promise<AppliedTxn>; cancel(): void } {
    const waiter = this.txnWaiters.wait(txn.txnId);
    this.proposer.add(txn);
    this.kick();
    return waiter;
  }

  /** Snapshot at `index` (applied here), compacting the log up to `compactIndex`. Loop only. */
  takeSnapshot(index: number, compactIndex: number): Promise<void> {
    return this.snapshotTaker.takeSnapshot(index, compactIndex);
  }

  // ---- forwarded operations ---------------------------------------------------------------

  /**
   * Hands one operation to `leader` over this node's stream to it (op-stream-client.ts): one
   * attempt. Rejects with the leader's error (RemoteOperationError) or, when the stream broke
   * first, ForwardedOperationLostError.
   */
  forwardOp(leader: string, kind: number, args: Uint8Array, options: OpCallOptions): Promise<OpAnswer> {
    if (this.isStoppingValue) return Promise.reject(new NodeStoppingError(this.config.id));
    if (!this.isMember()) return Promise.reject(new NotMemberError(this.config.id));
    return this.opClient.call(leader, kind, args, options);
  }

  /** Registers what runs the operations followers forward to this node while it leads. */
  serveForwardedOps(handler: OpHandler | null): void {
    this.opServer.setHandler(handler);
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The commit index as the leader confirms it now (ReadIndex), on any node. */
  readIndex(timeoutMs: number = raftLimits.readIndexTimeoutMs.value): Promise<number> {
    if (!this.isMember()) return Promise.reject(new NotMemberError(this.config.id));
    return this.reads.readIndex(timeoutMs);
  }

  /** Resolves once this replica applied `index`; false on timeout. */
  waitApplied(index: number, timeoutMs: number): Promise<boolean> {
    return this.appliedWaiters.waitFor(index, timeoutMs);
  }

  // ---- TxnExecutor -------------------------------------------------------------------------

  async readView(options: { linearizable: boolean }): Promise<ReadView> {
    if (this.isStoppingValue) throw new NodeStoppingError(this.config.id);
    if (!this.isMember()) throw new NotMemberError(this.config.id);
    if (options.linearizable) {
      const startedMs = this.runtime.scheduler.monotonicMs();
      const index = await this.readIndex();
      const remainingMs = Math.max(1, raftLimits.readIndexTimeoutMs.value - (this.runtime.scheduler.monotonicMs() - startedMs));
      if (!(await this.waitApplied(index, remainingMs))) throw new ReadIndexTimeoutError(this.config.id, raftLimits.readIndexTimeoutMs.value);
    }
    return this.state.mvcc.readView();
  }

  commit(txn: Txn): Promise<TxnOutcome> {
    if (!this.isMember()) return Promise.reject(new NotMemberError(this.config.id));
    return this.committer.commit(txn);
  }

  nowMs(): number {
    return this.clock.nowMs();
  }

  onApplied(listener: (writes: readonly TxnWrite[]) => void): () => void {
    return this.applier.onApplied(listener);
  }

  // ---- leadership and membership helpers ----------------------------------------------------

  get id(): string {
    return this.config.id;
  }

  leaderId(): string {
    return this.leadership.leader;
  }

  isLeader(): boolean {
    return this.leadership.isLeader;
  }

  /**
   * Registers an observer of the state database (row counts, compaction): it hears of the current
   * state at once and of every applied run and state replacement after, inside the Ready loop.
   */
  observeState(observer: StateObserver): () => void {
    this.stateObservers.add(observer);
    this.runInLoop(() => observer.onStateOpened(this.state)).catch((error: unknown) => this.logger.warn({ err: error }, 'a state observer failed to start'));
    return () => this.stateObservers.delete(observer);
  }

  /** Called on every change of leader, role or membership. */
  onLeadershipChange(listener: () => void): () => void {
    return this.leadership.onChange(listener);
  }

  /** The leader's id, waiting up to `timeoutMs` for one to be known. */
  waitForLeader(timeoutMs: number): Promise<string> {
    return this.leadership.waitForLeader(timeoutMs);
  }

  membership(): Membership {
    return this.logStore.currentMembership();
  }

  /**
   * Whether this node's configuration includes it, as voter or learner. A node started with
   * --join is not a member until a member adds it and it has received that configuration; until
   * then it serves no reads or commits (NotMemberError at once: no leader will ever talk to it).
   */
  isMember(): boolean {
    const { voters, learners } = this.logStore.currentMembership().confState;
    return voters.includes(this.config.id) || learners.includes(this.config.id);
  }

  raftStatus(): ReturnType<RawNode['status']> {
    return this.raw.status();
  }

  logBounds(): { firstIndex: number; lastIndex: number; snapshotIndex: number } {
    return { firstIndex: this.logStore.firstIndex(), lastIndex: this.logStore.lastIndex(), snapshotIndex: this.logStore.snapshot().meta.index };
  }

  appliedIndex(): number {
    return this.state.appliedIndex;
  }

  /**
   * A frozen LevelDB view of the whole state database and the index it holds (`raftq backup`).
   * Taken inside the loop, so no apply or snapshot install is halfway; the caller releases it.
   */
  freezeState(): Promise<{ reader: ReturnType<StateStore['engine']['snapshot']>; appliedIndex: number }> {
    return this.runInLoop(() => ({ reader: this.state.engine.snapshot(), appliedIndex: this.state.appliedIndex }));
  }

  proposeConfChange(change: ConfChange): void {
    this.raw.proposeConfChange(change);
    this.kick();
  }

  transferLeaderTo(target: string): void {
    this.raw.transferLeader(target);
    this.kick();
  }

  /** For membership-admin: the core's configuration now. */
  confState(): ConfState {
    return this.raw.status().confState;
  }

  callPeer: NodeTransport['call'] = (peerId, name, request, timeoutMs) => this.transport.call(peerId, name, request, timeoutMs);

  // ---- status ------------------------------------------------------------------------------

  role(): NodeRole {
    return this.reporter.role();
  }

  status(): Promise<NodeStatus> {
    return this.reporter.status();
  }

  /** Ready: a member that knows a leader and applied what the cluster had committed when asked. */
  async isReady(timeoutMs: number): Promise<boolean> {
    if (!this.isMember() || this.leadership.leader === '' || this.isStoppingValue || this.tailRepairGuard.isRepairing) return false;
    try {
      const index = await this.readIndex(timeoutMs);
      return this.state.appliedIndex >= index || (await this.waitApplied(index, timeoutMs));
    } catch {
      return false;
    }
  }

  // ---- inbound calls ----------------------------------------------------------------------------

  /** A Raft message from a peer: into the core, unless the loop stopped or tail repair holds it back. */
  private stepFromPeer(message: RaftMessage): void {
    if (!this.isLoopRunning) return;
    if (message.type === MessageType.AppResp || message.type === MessageType.HeartbeatResp) this.membershipAdmin.peerAnswered(message.from);
    const admitted = this.tailRepairGuard.admit(message, this.logStore.lastIndex());
    if (admitted === null) return;
    this.raw.step(admitted);
    this.kick();
  }
}
