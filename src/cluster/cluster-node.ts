/**
 * One node of a raftq cluster: the Raft core driven over a durable log, a gRPC transport and the
 * MVCC state. ClusterNode is what the rest of raftq holds: its lifecycle (open, start, stop) and
 * its API (transactions and reads as the storage layer's TxnExecutor, forwarded operations,
 * leadership, membership, status). What runs underneath (the pieces, their wiring and the Ready
 * loop) is NodeWiring's (node-wiring.ts), what it tells about itself (leader, membership, status)
 * NodeQueries' (node-queries.ts); what it does I/O and keeps time through is its
 * NodeRuntime (node-runtime.ts): the host's in production, simulated ones in test/sim-node.
 *
 * Each step's work lives in its own file: start-up recovery (node-stores.ts), one turn of the
 * Ready loop (ready-loop-turn.ts), who leads (leader-watch.ts), proposing (entry-proposer.ts),
 * applying (committed-entry-applier.ts), snapshots (snapshot-taker.ts, snapshot-sender.ts,
 * snapshot-receiver.ts), reads (read-index-reader.ts), commits from any node (txn-committer.ts),
 * status and gauges (node-status-reporter.ts), calls from peers (node-transport-handlers.ts),
 * background work (garbage-collection-scheduler.ts, leader-clock-sampler.ts).
 */
import type { Logger } from 'pino';
import { SystemClock, type Clock } from '../base/clock.js';
import { raftLimits } from '../base/limits.js';
import { SystemScheduler } from '../base/scheduler.js';
import type { RawNode } from '../raft/raw-node.js';
import type { AppliedListener, ReadView, Txn, TxnExecutor, TxnOutcome, TxnWrite } from '../storage/txn.js';
import { NodeStoppingError, ReadIndexTimeoutError } from './errors.js';
import { GrpcTransport } from './grpc-transport.js';
import type { LevelLogStore } from './level-log-store.js';
import type { NodeConfig } from './node-config.js';
import { NodeMetrics } from './node-metrics.js';
import type { NodeRuntime, NodeRuntimeParts } from './node-runtime.js';
import { dataDirStorage } from './node-storage.js';
import { NodeQueries } from './node-queries.js';
import { openNodeStores } from './node-stores.js';
import { nodeTransportHandlers, type NodeTransportView } from './node-transport-handlers.js';
import { NotMemberError } from './not-member-error.js';
import { OpStreamClient, type OpAnswer, type OpCallOptions } from './op-stream-client.js';
import type { OpHandler } from './op-stream-server.js';
import type { StateStore, StateStoreHints } from './state-store.js';
import { TxnCommitter, type TxnCommitterParts } from './txn-committer.js';
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
  /** Hints for the state store from the layer above (MvccStoreOptions.impliedNewKeys), for the default storage. */
  readonly stateHints?: StateStoreHints;
}

export class ClusterNode extends NodeQueries implements TxnExecutor {
  private readonly committer: TxnCommitter;
  private readonly opClient: OpStreamClient;
  private readonly transportView: NodeTransportView;
  private timers: Array<() => void> = [];

  private constructor(
    config: NodeConfig,
    logger: Logger,
    logStore: LevelLogStore,
    state: StateStore,
    raw: RawNode,
    wallClock: Clock,
    onFatal: (error: unknown) => void,
    nodeMetrics: NodeMetrics,
    runtime: NodeRuntimeParts,
  ) {
    super(config, logger, logStore, state, raw, wallClock, onFatal, nodeMetrics, runtime);
    this.committer = new TxnCommitter(this.committerParts());
    this.opClient = new OpStreamClient({
      groupId: config.groupId,
      scheduler: runtime.scheduler,
      open: (peerId) => this.transport.openOpStream(peerId),
    });
    this.transportView = {
      nodeId: config.id,
      isLeader: () => this.leadership.isLeader,
      leaderId: () => this.leadership.leader,
      role: () => this.reporter.role(),
      raftStatus: () => raw.status(),
      appliedIndex: () => this.state.appliedIndex,
      nowMs: () => this.clock.nowMs(),
      leaderProgress: () => this.leaderProgress(),
      membershipAdmin: this.membershipAdmin,
      serveOpStream: (call) => this.opServer.serve(call),
      serveForwardedTxns: (request) => this.committer.serveForwarded(request),
    };
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Opens the log and state under config.dataDir (finishing an interrupted snapshot install) and starts the node. */
  static async open(options: ClusterNodeOptions): Promise<ClusterNode> {
    const { config, logger } = options;
    const random = options.runtime?.random ?? Math.random;
    const storage = options.runtime?.storage ?? dataDirStorage(config.dataDir, options.stateHints);
    const faults = options.runtime?.faults ?? {};
    const runtime = {
      transport: options.runtime?.transport ?? GrpcTransport.start,
      scheduler: options.runtime?.scheduler ?? new SystemScheduler(),
      random,
      storage,
      faults,
    };
    const { logStore, state, raw } = await openNodeStores(config, logger, {
      storage,
      prngSeed: Math.floor(random() * 2 ** 31),
      ...(faults.applyBeforeCommit === true ? { raftFaults: { applyBeforeCommit: true } } : {}),
    });
    const node = new ClusterNode(
      config,
      logger,
      logStore,
      state,
      raw,
      options.wallClock ?? new SystemClock(),
      options.onFatal ?? (() => process.exit(1)),
      new NodeMetrics({ isProcessMetricsOn: options.isProcessMetricsOn ?? true }),
      runtime,
    );
    await node.start();
    return node;
  }

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
      handlers: nodeTransportHandlers({
        ...this.transportView,
        stepFromPeer: (message, fromAddress) => this.stepFromPeer(message, fromAddress),
        reportUnreachable: (peerId) => {
          if (this.isLoopRunning) this.raw.reportUnreachable(peerId);
        },
        receiveSnapshot: (chunks, fromId) => this.snapshotReceiver.receive(chunks, fromId),
        localReadIndex: (timeoutMs) => this.reads.localReadIndex(timeoutMs),
      }),
      logger: this.logger,
      jitter: this.runtime.random,
      announcedAddress: () => this.announcedAddress(),
    });
    this.refreshPeers();
    const membership = this.logStore.currentMembership();
    this.logger.info(
      {
        id: config.id,
        raftPort: this.transport.port,
        appliedIndex: this.state.appliedIndex,
        lastIndex: this.logStore.lastIndex(),
        voters: membership.confState.voters,
        learners: membership.confState.learners,
      },
      'node started',
    );
    this.reportTailRepair();
    if (!this.isMember())
      this.logger.warn(
        { id: config.id },
        'this node is not a member of the cluster yet: it answers every request with a retryable error until a member adds it (raftq members add)',
      );
    this.isLoopRunning = true;
    this.loopDone = this.runLoop();
    const { scheduler } = this.runtime;
    this.timers.push(scheduler.every(config.tickMs, () => this.onTick()));
    this.timers.push(scheduler.every(raftLimits.clockSampleIntervalMs.value, () => void this.clockSampler.sample()));
    this.timers.push(
      scheduler.every(raftLimits.garbageCollectionScheduleIntervalMs.value, () =>
        this.garbageCollection.maybeSchedule(),
      ),
    );
    // A lone voter need not wait out an election timeout to lead its one-node cluster.
    if (membership.confState.voters.length === 1 && membership.confState.voters[0] === config.id) {
      this.runInLoop(() => this.raw.campaign());
    }
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
    const deadlineMs = this.runtime.scheduler.monotonicMs() + raftLimits.shutdownDrainMs.value;
    await this.committer.drain(deadlineMs);
    if (options.transferLeadership && this.leadership.isLeader) {
      await this.membershipAdmin
        .handOffLeadership(deadlineMs)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'could not hand leadership over before stopping'));
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

  // ---- snapshots ---------------------------------------------------------------------------

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
      const remainingMs = Math.max(
        1,
        raftLimits.readIndexTimeoutMs.value - (this.runtime.scheduler.monotonicMs() - startedMs),
      );
      if (!(await this.waitApplied(index, remainingMs)))
        throw new ReadIndexTimeoutError(this.config.id, raftLimits.readIndexTimeoutMs.value);
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

  onApplied(listener: AppliedListener): () => void {
    return this.applier.onApplied(listener);
  }

  // ---- readiness ---------------------------------------------------------------------------

  /** Ready: a member that knows a leader and applied what the cluster had committed when asked. */
  async isReady(timeoutMs: number): Promise<boolean> {
    if (!this.isMember() || this.leadership.leader === '' || this.isStoppingValue || this.tailRepairGuard.isRepairing)
      return false;
    try {
      const index = await this.readIndex(timeoutMs);
      return this.state.appliedIndex >= index || (await this.waitApplied(index, timeoutMs));
    } catch {
      return false;
    }
  }

  private committerParts(): TxnCommitterParts {
    const { config, leadership } = this;
    return {
      nodeId: config.id,
      groupId: config.groupId,
      metrics: this.metrics,
      callPeer: this.callPeer,
      isStopping: () => this.isStoppingValue,
      isLeader: () => leadership.isLeader,
      leaderId: () => leadership.leader,
      waitForLeader: (timeoutMs) => leadership.waitForLeader(timeoutMs),
      proposeLocally: (txn) => this.proposeLocally(txn),
      waitApplied: (index, timeoutMs) => this.appliedWaiters.waitFor(index, timeoutMs),
      scheduler: this.runtime.scheduler,
    };
  }
}
