/**
 * The running node under ClusterNode (cluster-node.ts): its pieces, wired to each other, and the
 * Ready loop that drives the Raft core over them. The loop runs one step at a time: the tasks
 * queued for it, then one turn (ready-loop-turn.ts): propose what clients queued → while the core
 * has a Ready: install a received snapshot → persist → send → apply → answer reads → advance.
 *
 * Everything that changes the log or the state (snapshots, conf change proposals, compaction)
 * runs as a task of this loop, so no two of them ever interleave. Messages from peers and ticks
 * are fed to the core as they arrive (RawNode allows it between ready() and advance()).
 * How the loop is woken is ready-loop-wakeup.ts; where peers are reached is peer-addresses.ts.
 * ClusterNode adds the lifecycle (open, start, stop) and the API the rest of raftq calls.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import { raftLimits } from '../base/limits.js';
import type { RawNode } from '../raft/raw-node.js';
import { MessageType, type ConfState, type RaftMessage } from '../raft/types.js';
import type { Txn } from '../storage/txn.js';
import { ClusterClock } from './cluster-clock.js';
import { CommittedEntryApplier } from './committed-entry-applier.js';
import { EntryProposer } from './entry-proposer.js';
import { FollowerApplyPacing } from './follower-apply-pacing.js';
import { GarbageCollectionScheduler } from './garbage-collection-scheduler.js';
import { LeaderClockSampler } from './leader-clock-sampler.js';
import { LeaderWatch } from './leader-watch.js';
import type { LevelLogStore } from './level-log-store.js';
import { MembershipAdmin, type MembershipAdminParts } from './membership-admin.js';
import type { NodeConfig } from './node-config.js';
import type { NodeMetrics } from './node-metrics.js';
import type { NodeRuntimeParts } from './node-runtime.js';
import { NodeStatusReporter } from './node-status-reporter.js';
import type { NodeTransport } from './node-transport.js';
import { OpStreamServer } from './op-stream-server.js';
import { announcedAddressOf, learnAnnouncedAddress, refreshPeerAddresses } from './peer-addresses.js';
import { ReadIndexReader } from './read-index-reader.js';
import { ReadyLoopTurn } from './ready-loop-turn.js';
import { ReadyLoopWakeup } from './ready-loop-wakeup.js';
import { SnapshotReceiver } from './snapshot-receiver.js';
import { SnapshotSender } from './snapshot-sender.js';
import { SnapshotTaker } from './snapshot-taker.js';
import type { StateObserver } from './state-observer.js';
import type { StateStore } from './state-store.js';
import { TailRepairGuard } from './tail-repair-guard.js';
import { AppliedIndexWaiters, TxnWaiters, type AppliedTxn } from './txn-waiters.js';
import { isElectionMessageForNonVoter } from './voter-only-elections.js';

export abstract class NodeWiring {
  readonly metrics: NodeMetrics;
  readonly clock: ClusterClock;
  readonly membershipAdmin: MembershipAdmin;
  /** Runs the operations followers forward here (op-stream-server.ts). */
  protected readonly opServer: OpStreamServer;
  protected transport!: NodeTransport;
  protected readonly txnWaiters = new TxnWaiters();
  protected readonly appliedWaiters: AppliedIndexWaiters;
  protected readonly leadership: LeaderWatch;
  protected readonly stateObservers = new Set<StateObserver>();
  protected readonly applier: CommittedEntryApplier;
  protected readonly reads: ReadIndexReader;
  protected readonly snapshotReceiver: SnapshotReceiver;
  protected readonly reporter: NodeStatusReporter;
  protected readonly garbageCollection: GarbageCollectionScheduler;
  protected readonly snapshotTaker: SnapshotTaker;
  protected readonly clockSampler: LeaderClockSampler;
  protected readonly tailRepairGuard: TailRepairGuard;
  private readonly proposer: EntryProposer;
  private readonly readyLoopTurn: ReadyLoopTurn;
  private readonly wakeup = new ReadyLoopWakeup();
  protected isLoopRunning = false;
  protected loopDone: Promise<void> = Promise.resolve();
  protected isStoppingValue = false;
  private ticksSincePromotionCheck = 0;

  protected constructor(
    readonly config: NodeConfig,
    readonly logger: Logger,
    protected readonly logStore: LevelLogStore,
    protected state: StateStore,
    protected readonly raw: RawNode,
    wallClock: Clock,
    private readonly onFatal: (error: unknown) => void,
    nodeMetrics: NodeMetrics,
    protected readonly runtime: NodeRuntimeParts,
  ) {
    this.metrics = nodeMetrics;
    this.clock = new ClusterClock(wallClock, runtime.scheduler);
    this.tailRepairGuard = new TailRepairGuard(logStore.tailRepair, config.electionTimeoutTicks * 2);
    this.appliedWaiters = new AppliedIndexWaiters(() => this.state.appliedIndex, runtime.scheduler);
    const { metrics, clock, txnWaiters, appliedWaiters } = this;
    const nodeId = config.id;
    const groupId = config.groupId;
    const currentState = (): StateStore => this.state;
    const currentTransport = (): NodeTransport => this.transport;
    const isStopping = (): boolean => this.isStoppingValue;
    const kick = (): void => this.kick();
    const refreshPeers = (): void => this.refreshPeers();
    this.leadership = new LeaderWatch({ nodeId, isStopping, scheduler: runtime.scheduler });
    // Only a leader reads the messages it applies (followers forward receives): a follower's cache
    // keeps versions, not bodies. The node starts as a follower.
    state.mvcc.setKeepsUnreadValues(false);
    this.leadership.onChange(() => this.state.mvcc.setKeepsUnreadValues(this.leadership.isLeader));
    this.proposer = new EntryProposer({ nodeId, metrics, clock, raw, logStore, state: currentState, txnWaiters });
    this.applier = new CommittedEntryApplier({
      nodeId,
      logger,
      metrics,
      raw,
      logStore,
      state: currentState,
      txnWaiters,
      appliedWaiters,
      stateObservers: this.stateObservers,
      refreshPeers,
      notifyMembershipListeners: () => this.leadership.notify(),
    });
    this.reads = new ReadIndexReader({
      nodeId,
      groupId,
      metrics,
      raw,
      transport: currentTransport,
      kick,
      waitForLeader: (timeoutMs) => this.leadership.waitForLeader(timeoutMs),
      leaderHint: () => this.leadership.leader,
      scheduler: runtime.scheduler,
    });
    const snapshotSender = new SnapshotSender({
      groupId,
      logger,
      metrics,
      scheduler: runtime.scheduler,
      logStore,
      state: currentState,
      transport: currentTransport,
      reportSnapshot: (peerId, status) =>
        void this.runInLoop(() => this.raw.reportSnapshot(peerId, status)).catch(() => undefined),
    });
    this.snapshotReceiver = new SnapshotReceiver({
      stateDir: runtime.storage.stateDir,
      groupId,
      logger,
      metrics,
      logStore,
      isStopping,
      kick,
      state: currentState,
      refreshPeers,
      appliedWaiters,
      step: (message) => this.raw.step(message),
      adoptState: (state) => {
        this.state = state;
        state.mvcc.setKeepsUnreadValues(this.leadership.isLeader);
        for (const observer of this.stateObservers) observer.onStateOpened(state);
      },
    });
    this.reporter = new NodeStatusReporter({
      config,
      metrics,
      clock,
      raw,
      logStore,
      state: currentState,
      transport: currentTransport,
      tailRepairGuard: this.tailRepairGuard,
    });
    this.garbageCollection = new GarbageCollectionScheduler({
      logger,
      state: currentState,
      isStopping,
      monotonicMs: () => runtime.scheduler.monotonicMs(),
      onStepSeconds: (seconds) => metrics.gcStepSeconds.observe(seconds),
    });
    this.snapshotTaker = new SnapshotTaker({
      config,
      logger,
      metrics,
      logStore,
      state: currentState,
      isFlushSkipped: runtime.faults.compactPastFlush === true,
    });
    this.clockSampler = new LeaderClockSampler({
      nodeId,
      groupId,
      clock,
      transport: currentTransport,
      isStopping,
      leaderId: () => this.leadership.leader,
    });
    this.opServer = new OpStreamServer({
      groupId,
      metrics,
      scheduler: runtime.scheduler,
      isStopping,
      isLeader: () => this.leadership.isLeader,
      leaderHint: () => this.leadership.leader,
    });
    this.membershipAdmin = new MembershipAdmin(this.membershipAdminParts());
    this.readyLoopTurn = new ReadyLoopTurn({
      nodeId,
      logger,
      metrics,
      clock,
      raw,
      logStore,
      transport: currentTransport,
      leadership: this.leadership,
      proposer: this.proposer,
      applier: this.applier,
      applyPacing: new FollowerApplyPacing({
        scheduler: runtime.scheduler,
        entriesMin: raftLimits.followerApplyEntriesMin.value,
        delayMsMax: raftLimits.followerApplyDelayMsMax.value,
        kick: () => this.kick(),
      }),
      isApplyAwaited: () => this.appliedWaiters.isWaiting,
      reads: this.reads,
      snapshotReceiver: this.snapshotReceiver,
      snapshotSender,
      snapshotTaker: this.snapshotTaker,
      reporter: this.reporter,
      txnWaiters,
      opServer: this.opServer,
      scheduler: runtime.scheduler,
    });
  }

  /** Calls `peerId` over the cluster transport. */
  callPeer: NodeTransport['call'] = (peerId, name, request, timeoutMs) =>
    this.transport.call(peerId, name, request, timeoutMs);

  // ---- the Ready loop --------------------------------------------------------------------

  protected kick(): void {
    this.wakeup.kick();
  }

  /** Runs `task` inside the loop, between two Readys; resolves with its result. */
  runInLoop<T>(task: () => Promise<T> | T): Promise<T> {
    return this.wakeup.runInLoop(task);
  }

  protected async runLoop(): Promise<void> {
    try {
      while (this.isLoopRunning) {
        await this.wakeup.waitForKick();
        if (!this.isLoopRunning) break;
        for (const task of this.wakeup.takeTasks()) await task();
        await this.readyLoopTurn.run();
      }
    } catch (error) {
      this.logger.fatal({ err: error }, 'the Ready loop failed; stopping the node');
      this.isLoopRunning = false;
      this.onFatal(error);
    }
  }

  /** Queues a transaction for the next entry; resolves once applied here. Leader only. */
  protected proposeLocally(txn: Txn): { promise: Promise<AppliedTxn>; cancel(): void } {
    const waiter = this.txnWaiters.wait(txn.txnId);
    this.proposer.add(txn);
    this.kick();
    return waiter;
  }

  // ---- ticks and peers ---------------------------------------------------------------------

  protected reportTailRepair(): void {
    const repair = this.logStore.tailRepair;
    if (repair === null) return;
    const voters = this.logStore.currentMembership().confState.voters;
    if (voters.length === 1 && voters[0] === this.config.id) {
      this.tailRepairGuard.waive();
      this.logger.error(
        { repair },
        'the Raft log tail was damaged; as the only voter this node has no peer to repair it from and goes on with what it kept',
      );
      return;
    }
    this.logger.error(
      { repair },
      'the Raft log tail was damaged: cut back to what can be trusted; repairing from the leader, neither voting nor campaigning until caught up',
    );
  }

  protected onTick(): void {
    if (this.tailRepairGuard.tick()) this.raw.tick();
    if (this.tailRepairGuard.maybeFinish({ lastIndex: this.logStore.lastIndex(), leader: this.leadership.leader })) {
      this.logger.info(
        { lastIndex: this.logStore.lastIndex(), leaderCommitIndexSeen: this.tailRepairGuard.leaderCommitIndexSeen },
        'the Raft log tail is repaired: voting again',
      );
    }
    if (++this.ticksSincePromotionCheck >= raftLimits.learnerPromotionCheckTicks.value) {
      this.ticksSincePromotionCheck = 0;
      if (this.leadership.isLeader)
        this.runInLoop(() => this.membershipAdmin.maybePromoteLearner()).catch(() => undefined);
    }
    this.kick();
  }

  /** Points the transport at every member but this node (peer-addresses.ts). */
  protected refreshPeers(): void {
    refreshPeerAddresses(this.config, this.logStore.currentMembership(), this.transport);
  }

  /** This node's Raft address as the cluster knows it; '' if it has none. */
  protected announcedAddress(): string {
    return announcedAddressOf(this.config, this.logStore.currentMembership());
  }

  /**
   * A Raft message from a peer: into the core, unless the loop stopped, this node is no voter and
   * the message an election (voter-only-elections.ts), or tail repair holds it back.
   */
  protected stepFromPeer(message: RaftMessage, fromAddress = ''): void {
    if (!this.isLoopRunning) return;
    this.metrics.receivedByKind.count(message);
    learnAnnouncedAddress(
      { config: this.config, transport: this.transport, logger: this.logger },
      message.from,
      fromAddress,
    );
    if (message.type === MessageType.AppResp || message.type === MessageType.HeartbeatResp)
      this.membershipAdmin.peerAnswered(message.from);
    if (isElectionMessageForNonVoter(message, this.config.id, () => this.confState())) return;
    const admitted = this.tailRepairGuard.admit(message, this.logStore.lastIndex());
    if (admitted === null) return;
    this.raw.step(admitted);
    this.kick();
  }

  // ---- what the state and the log say ----------------------------------------------------------

  /** The Raft core's configuration now. */
  confState(): ConfState {
    return this.raw.status().confState;
  }

  logBounds(): { firstIndex: number; lastIndex: number; snapshotIndex: number } {
    return {
      firstIndex: this.logStore.firstIndex(),
      lastIndex: this.logStore.lastIndex(),
      snapshotIndex: this.logStore.snapshot().meta.index,
    };
  }

  private membershipAdminParts(): MembershipAdminParts {
    const { config, logger, raw, leadership } = this;
    return {
      nodeId: config.id,
      config,
      logger,
      callPeer: this.callPeer,
      wallMs: () => this.clock.wallMs(),
      scheduler: this.runtime.scheduler,
      isLeader: () => leadership.isLeader,
      leaderId: () => leadership.leader,
      waitForLeader: (timeoutMs) => leadership.waitForLeader(timeoutMs),
      onLeadershipChange: (listener) => leadership.onChange(listener),
      raftStatus: () => raw.status(),
      confState: () => this.confState(),
      membership: () => this.logStore.currentMembership(),
      runInLoop: (task) => this.runInLoop(task),
      proposeConfChange: (change) => {
        raw.proposeConfChange(change);
        this.kick();
      },
      transferLeaderTo: (target) => {
        raw.transferLeader(target);
        this.kick();
      },
    };
  }
}
