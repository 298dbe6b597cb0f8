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
 */
import { mkdirSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { assert } from '../base/assert.js';
import { SystemClock, type Clock } from '../base/clock.js';
import { raftLimits } from '../base/limits.js';
import { SeededPrng } from '../base/prng.js';
import type { raftq } from '../gen/proto.js';
import { decodeConfChange } from '../raft/conf-change.js';
import { ProposalDroppedError, ReadIndexDroppedError } from '../raft/errors.js';
import { RawNode } from '../raft/raw-node.js';
import { EntryType, MessageType, type ConfChange, type ConfState, type Entry, type RaftMessage, type Ready, type SoftState } from '../raft/types.js';
import type { ReadView, Txn, TxnExecutor, TxnOutcome } from '../storage/txn.js';
import { ClusterClock } from './cluster-clock.js';
import { NoLeaderError, NodeStoppingError, NotLeaderError, ReadIndexTimeoutError, SnapshotTransferError } from './errors.js';
import { GrpcTransport, type TransportHandlers } from './grpc-transport.js';
import { decodeMembership, encodeMembership, LevelLogStore, type Membership } from './level-log-store.js';
import { MembershipAdmin } from './membership-admin.js';
import type { NodeConfig } from './node-config.js';
import { NodeMetrics } from './node-metrics.js';
import { ProposalBatcher } from './proposal-batcher.js';
import { raftMessageFromWire, raftMessageToWire } from './raft-codec.js';
import { ReadIndexRounds } from './read-index-rounds.js';
import { ChunkVerifier, snapshotChunks } from './snapshot-chunks.js';
import { applyEntriesToStore, decodeEntryPayload, encodeEntryPayload, type EntryToApply } from './state-apply.js';
import type { StateObserver } from './state-observer.js';
import { recoverStateInstall, statePaths, swapInSnapshot } from './state-install.js';
import { IncomingState, StateStore } from './state-store.js';
import { TailRepairGuard, type TailRepairState } from './tail-repair-guard.js';
import { TxnCommitter } from './txn-committer.js';
import { AppliedIndexWaiters, TxnWaiters, type AppliedTxn } from './txn-waiters.js';
import { loadTlsFiles } from './transport-security.js';

export type NodeRole = 'leader' | 'follower' | 'candidate' | 'learner';

export interface MemberStatus {
  readonly id: string;
  readonly address: string;
  readonly role: 'voter' | 'learner';
}

export interface NodeStatus {
  readonly id: string;
  readonly role: NodeRole;
  readonly term: number;
  readonly leader: string;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly members: MemberStatus[];
  readonly stateDigest: string;
  readonly lastIndex: number;
  readonly firstIndex: number;
  readonly snapshotIndex: number;
  readonly clockOffsetMs: number;
  readonly artificialClockOffsetMs: number;
  /** What this node can do beyond the basics; the fault-injection harness reads it. */
  readonly capabilities: readonly string[];
  /** Whether the log was found damaged at start-up and, if so, whether it holds its tail again. */
  readonly logTailRepair: { readonly state: TailRepairState; readonly keptLastIndex: number | null; readonly leaderCommitIndexSeen: number };
}

/** Capabilities reported in /status. */
export const nodeCapabilities: readonly string[] = ['log-tail-repair'];

export interface ClusterNodeOptions {
  readonly config: NodeConfig;
  readonly logger: Logger;
  readonly wallClock?: Clock;
  /** Called when the node hits an error it cannot continue from (a failed disk write): exit. */
  readonly onFatal?: (error: unknown) => void;
}

type LoopTask = () => Promise<void> | void;

/** Leadership moved while a proposal waited; the committer retries it with the new leader. */
export class LeadershipLostError extends Error {
  constructor(readonly txnId: string) {
    super(`Leadership moved while txn ${txnId} was pending`);
    this.name = 'LeadershipLostError';
  }
}

const utf8Decoder = new TextDecoder();

export class ClusterNode implements TxnExecutor {
  readonly metrics = new NodeMetrics();
  readonly clock: ClusterClock;
  readonly committer: TxnCommitter;
  readonly membershipAdmin: MembershipAdmin;
  private transport!: GrpcTransport;
  private readonly batcher = new ProposalBatcher();
  private readonly txnWaiters = new TxnWaiters();
  private readonly appliedWaiters: AppliedIndexWaiters;
  private readonly readRounds = new ReadIndexRounds();
  private readonly appliedListeners = new Set<(keys: readonly Uint8Array[]) => void>();
  private readonly leaderListeners = new Set<() => void>();
  private readonly stateObservers = new Set<StateObserver>();
  private readonly loopTasks: LoopTask[] = [];
  private softState: SoftState = { leader: '', role: 'follower' };
  private lastStampTs = 0;
  private timers: NodeJS.Timeout[] = [];
  private wake: (() => void) | null = null;
  private isKicked = false;
  private isLoopRunning = false;
  private loopDone: Promise<void> = Promise.resolve();
  private isStoppingValue = false;
  private readonly snapshotSendsInFlight = new Set<string>();
  private isReceivingSnapshot = false;
  private pendingSnapshotStep: { message: RaftMessage; resolve(installed: boolean): void } | null = null;
  private awaitedSnapshotIndex: number | null = null;
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
  ) {
    this.clock = new ClusterClock(wallClock);
    this.tailRepairGuard = new TailRepairGuard(logStore.tailRepair, config.electionTimeoutTicks * 2);
    this.appliedWaiters = new AppliedIndexWaiters(() => this.state.appliedIndex);
    this.committer = new TxnCommitter(this);
    this.membershipAdmin = new MembershipAdmin(this);
  }

  /** Opens the log and state under config.dataDir (finishing an interrupted snapshot install) and starts the node. */
  static async open(options: ClusterNodeOptions): Promise<ClusterNode> {
    const { config, logger } = options;
    mkdirSync(config.dataDir, { recursive: true });
    const bootstrap: Membership = {
      confState: config.join ? { voters: [], learners: [] } : { voters: Object.keys(config.peers).sort(), learners: [] },
      index: 0,
      addresses: config.peers,
    };
    const logStore = await LevelLogStore.open(join(config.dataDir, 'raft'), bootstrap);
    const recovered = await recoverStateInstall(config.dataDir, logStore);
    if (recovered !== null) logger.info({ snapshotIndex: recovered.meta.index }, 'finished a snapshot install interrupted by a crash');
    const state = await StateStore.open(statePaths(config.dataDir).live);
    const hardState = logStore.initialState().hardState;
    const compactedIndex = logStore.firstIndex() - 1;
    assert(
      state.appliedIndex >= compactedIndex,
      `state applied index ${state.appliedIndex} is behind the compacted log (${compactedIndex}): ${join(config.dataDir, 'state')} was lost or replaced`,
    );
    const applied = Math.max(compactedIndex, Math.min(state.appliedIndex, hardState.commit, logStore.lastIndex()));
    const raw = new RawNode({
      id: config.id,
      storage: logStore,
      prng: new SeededPrng(randomInt(2 ** 31)),
      electionTimeoutTicks: config.electionTimeoutTicks,
      heartbeatTicks: config.heartbeatTicks,
      applied,
      inflightMessagesMax: raftLimits.inflightMessagesMax.value,
      appendBytesMax: raftLimits.appendBytesMax.value,
      uncommittedBytesMax: raftLimits.uncommittedBytesMax.value,
      preVote: true,
      checkQuorum: true,
    });
    const node = new ClusterNode(config, logger, logStore, state, raw, options.wallClock ?? new SystemClock(), options.onFatal ?? (() => process.exit(1)));
    await node.start();
    return node;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  private async start(): Promise<void> {
    const { config } = this;
    if (config.clusterSecret === '' && Object.keys(config.peers).length > 1) {
      this.logger.warn('no cluster secret: inter-node calls are not authenticated (set --cluster-secret)');
    }
    this.transport = await GrpcTransport.start({
      selfId: config.id,
      groupId: config.groupId,
      listenAddress: config.raftListen,
      security: { clusterSecret: config.clusterSecret, tls: config.tls === null ? null : loadTlsFiles(config.tls) },
      handlers: this.transportHandlers(),
      logger: this.logger,
      jitter: () => Math.random(),
    });
    this.refreshPeers();
    this.lastStampTs = this.state.lastCommitTs;
    const membership = this.logStore.currentMembership();
    this.logger.info(
      { id: config.id, raftPort: this.transport.port, appliedIndex: this.state.appliedIndex, lastIndex: this.logStore.lastIndex(), voters: membership.confState.voters, learners: membership.confState.learners },
      'node started',
    );
    this.reportTailRepair();
    this.isLoopRunning = true;
    this.loopDone = this.runLoop();
    this.timers.push(setInterval(() => this.onTick(), config.tickMs));
    this.timers.push(setInterval(() => void this.sampleLeaderClock(), raftLimits.clockSampleIntervalMs.value));
    this.timers.push(setInterval(() => this.scheduleGarbageCollection(), 500));
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
    if (options.transferLeadership && this.softState.role === 'leader') {
      await this.membershipAdmin.handOffLeadership(deadlineMs).catch((error: unknown) => this.logger.warn({ err: error }, 'could not hand leadership over before stopping'));
    }
    await this.close();
  }

  /** Stops at once, without draining or handing over (tests, fatal errors). */
  async close(): Promise<void> {
    this.isStoppingValue = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.isLoopRunning = false;
    this.kick();
    await this.loopDone;
    const stopped = new NodeStoppingError(this.config.id);
    this.txnWaiters.rejectAll(() => stopped);
    this.readRounds.failAll(stopped);
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
        this.stepPendingSnapshot();
        this.proposeQueued();
        this.issueReadRounds();
        while (this.raw.hasReady()) {
          const ready = this.raw.ready();
          await this.handleReady(ready);
          this.raw.advance(ready);
        }
        this.finishSnapshotStep();
        this.updateGauges();
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
    if (this.tailRepairGuard.maybeFinish({ lastIndex: this.logStore.lastIndex(), leader: this.softState.leader })) {
      this.logger.info({ lastIndex: this.logStore.lastIndex(), leaderCommitIndexSeen: this.tailRepairGuard.leaderCommitIndexSeen }, 'the Raft log tail is repaired: voting again');
    }
    if (++this.ticksSincePromotionCheck >= 5) {
      this.ticksSincePromotionCheck = 0;
      if (this.softState.role === 'leader') this.runInLoop(() => this.membershipAdmin.maybePromoteLearner()).catch(() => undefined);
    }
    this.kick();
  }

  private async handleReady(ready: Ready): Promise<void> {
    if (ready.softState !== null) this.onSoftState(ready.softState);
    if (ready.snapshot !== null) await this.installSnapshot(ready);
    // A leader's appends do not depend on its own copy of the entries being durable (Raft thesis
    // §10.2.1: the leader counts itself only once its write is done), so they leave before the
    // fsync and the leader's write overlaps the followers'. Everything else waits for it: votes,
    // and anything sent in a Ready that changes the term or the vote.
    const persisted = this.logStore.currentHardState();
    const isTermSettled = ready.hardState === null || (ready.hardState.term === persisted.term && ready.hardState.vote === persisted.vote);
    const isEarlySendAllowed = this.softState.role === 'leader' && isTermSettled;
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
      await this.applyCommitted(ready.committedEntries);
      this.metrics.applySeconds.observe((performance.now() - startedAt) / 1000);
      await this.maybeSnapshot(ready.committedEntries[ready.committedEntries.length - 1] as Entry);
    }
    for (const readState of ready.readStates) this.readRounds.complete(readState.requestCtx, readState.index);
  }

  private onSoftState(softState: SoftState): void {
    const previous = this.softState;
    this.softState = softState;
    const term = this.raw.status().term;
    if (softState.role === 'leader' && previous.role !== 'leader') {
      this.clock.becomeReference();
      this.lastStampTs = Math.max(this.lastStampTs, this.state.lastCommitTs, this.highestLoggedStampTs());
      this.logger.info({ term }, 'became leader');
    } else if (softState.leader !== previous.leader) {
      this.clock.forgetSamples();
      if (softState.leader === '') this.logger.info({ term, role: softState.role }, 'lost the leader');
      else this.logger.info({ term, leader: softState.leader }, 'following a new leader');
    }
    if (previous.role === 'leader' && softState.role !== 'leader') {
      this.logger.info({ term }, 'stepped down as leader');
      this.txnWaiters.rejectAll((txnId) => new LeadershipLostError(txnId));
      this.readRounds.failAll(new NotLeaderError(this.config.id, softState.leader));
    }
    for (const listener of this.leaderListeners) listener();
  }

  private send(message: RaftMessage): void {
    if (message.type === MessageType.Snap) {
      this.sendSnapshot(message);
      return;
    }
    this.transport.sendRaft(message);
  }

  // ---- proposals ---------------------------------------------------------------------------

  /** Queues a transaction for the next entry; resolves once applied here. Leader only. */
  proposeLocally(txn: Txn): { promise: Promise<AppliedTxn>; cancel(): void } {
    const waiter = this.txnWaiters.wait(txn.txnId);
    this.batcher.add(txn);
    this.kick();
    return waiter;
  }

  private proposeQueued(): void {
    if (this.batcher.size === 0) return;
    for (const batch of this.batcher.drain()) {
      try {
        this.raw.propose(encodeEntryPayload(this.nextStampTs(), batch));
        this.metrics.proposedEntries.inc();
        this.metrics.proposals.inc({ result: 'proposed' }, batch.length);
      } catch (error) {
        if (!(error instanceof ProposalDroppedError)) throw error;
        this.metrics.proposals.inc({ result: 'dropped' }, batch.length);
        for (const txn of batch) this.txnWaiters.reject(txn.txnId, new NotLeaderError(this.config.id, error.leaderId, { cause: error }));
      }
    }
  }

  /** Entry stamps in µs of the cluster clock, strictly increasing across leaders (see onSoftState). */
  private nextStampTs(): number {
    this.lastStampTs = Math.max(Math.floor(this.clock.nowMs() * 1000), this.lastStampTs + 1);
    return this.lastStampTs;
  }

  /** The highest stamp among log entries not yet applied here (a new leader continues above it). */
  private highestLoggedStampTs(): number {
    let highest = 0;
    const from = Math.max(this.state.appliedIndex + 1, this.logStore.firstIndex());
    const to = this.logStore.lastIndex();
    if (from > to) return 0;
    for (const entry of this.logStore.entries(from, to + 1, Number.MAX_SAFE_INTEGER)) {
      if (entry.type !== EntryType.Normal || entry.data.byteLength === 0) continue;
      highest = Math.max(highest, decodeEntryPayload(entry.data).leaderStampTs);
    }
    return highest;
  }

  // ---- apply -------------------------------------------------------------------------------

  private async applyCommitted(entries: readonly Entry[]): Promise<void> {
    let run: EntryToApply[] = [];
    for (const entry of entries) {
      if (entry.type === EntryType.ConfChange) {
        await this.applyRun(run);
        run = [];
        await this.applyConfChangeEntry(entry);
        continue;
      }
      // After a snapshot install the state may already include entries the log still delivers.
      if (entry.index <= this.state.appliedIndex) continue;
      if (entry.data.byteLength === 0) run.push({ index: entry.index, leaderStampTs: 0, txns: [] });
      else run.push({ index: entry.index, ...decodeEntryPayload(entry.data) });
    }
    await this.applyRun(run);
  }

  private async applyRun(run: readonly EntryToApply[]): Promise<void> {
    if (run.length === 0) return;
    const applied = await applyEntriesToStore(this.state.mvcc, run);
    const writtenKeys: Uint8Array[] = [];
    for (const entry of applied.entries) {
      for (const { txn, outcome } of entry.results) {
        this.metrics.appliedTxns.inc({ outcome: outcome.kind });
        if (outcome.kind === 'committed') for (const write of txn.writes) writtenKeys.push(write.key);
        this.txnWaiters.resolve(txn.txnId, { outcome, entryIndex: entry.index });
      }
    }
    this.appliedWaiters.notify();
    for (const observer of this.stateObservers) observer.onApplied({ liveKeyChanges: applied.liveKeyChanges, versionsWritten: applied.versionsWritten });
    if (writtenKeys.length > 0) {
      for (const listener of this.appliedListeners) {
        try {
          listener(writtenKeys);
        } catch (error) {
          this.logger.error({ err: error }, 'an onApplied listener threw');
        }
      }
    }
  }

  private async applyConfChangeEntry(entry: Entry): Promise<void> {
    const change = decodeConfChange(entry.data);
    const membership = this.logStore.currentMembership();
    if (entry.index > membership.index) {
      const confState = this.raw.applyConfChange(change);
      const addresses = { ...membership.addresses };
      const announced = utf8Decoder.decode(change.context);
      if (change.kind === 'removeNode') delete addresses[change.nodeId];
      else if (announced !== '') addresses[change.nodeId] = announced;
      // Membership first, then the state's applied index: a crash between them replays the entry,
      // and the replay skips the conf change because membership.index already covers it.
      await this.logStore.recordMembership({ confState, index: entry.index, addresses });
      this.refreshPeers();
      this.logger.info({ index: entry.index, change: change.kind, nodeId: change.nodeId, voters: confState.voters, learners: confState.learners }, 'membership changed');
      if (change.kind === 'removeNode' && change.nodeId === this.config.id) this.logger.warn('this node was removed from the cluster');
      for (const listener of this.leaderListeners) listener();
    }
    if (entry.index > this.state.appliedIndex) await this.applyRun([{ index: entry.index, leaderStampTs: 0, txns: [] }]);
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

  // ---- snapshots ---------------------------------------------------------------------------

  /** Takes a snapshot and compacts the log when enough was applied since the last one. */
  private async maybeSnapshot(lastApplied: Entry): Promise<void> {
    const snapshotIndex = this.logStore.snapshot().meta.index;
    const index = Math.min(lastApplied.index, this.state.appliedIndex, this.logStore.lastIndex());
    const isDue = index - snapshotIndex >= this.config.snapshotThresholdEntries || this.logStore.logBytes() >= raftLimits.logMirrorBytesMax.value;
    if (!isDue || index <= snapshotIndex) return;
    await this.takeSnapshot(index, Math.max(this.logStore.firstIndex() - 1, index - this.config.snapshotCatchUpEntries));
  }

  /** Snapshot at `index` (applied here), compacting the log up to `compactIndex`. Loop only. */
  async takeSnapshot(index: number, compactIndex: number): Promise<void> {
    const membership = this.logStore.currentMembership();
    if (membership.index > index) return;
    // The log may only be compacted behind state that is durable.
    await this.state.mvcc.flush();
    await this.logStore.createSnapshot({ index, confState: membership.confState, addresses: membership.addresses }, compactIndex);
    this.metrics.snapshotsTaken.inc();
    this.logger.info({ index, compactIndex, firstIndex: this.logStore.firstIndex() }, 'took a snapshot and compacted the log');
  }

  /** Streams the current state to a follower the leader can no longer feed from the log. */
  private sendSnapshot(message: RaftMessage): void {
    const peerId = message.to;
    if (this.snapshotSendsInFlight.has(peerId)) return;
    this.snapshotSendsInFlight.add(peerId);
    // The state streams as it is now, at applied index X, which may be past the index the core
    // chose (the last snapshot taken). The message is restamped with X, its term and the
    // configuration as of X, so the follower's log and state agree once it is installed. (Apply
    // and conf changes run in this loop, so the index, membership and frozen view are one point.)
    const frozen = this.state.engine.snapshot();
    const stateIndex = this.state.appliedIndex;
    const membership = this.logStore.currentMembership();
    const original = message.snapshot;
    const isRestampable = original !== null && stateIndex >= original.meta.index && stateIndex <= this.logStore.lastIndex() && stateIndex >= this.logStore.firstIndex() - 1 && membership.index <= stateIndex;
    const restamped: RaftMessage = isRestampable
      ? {
          ...message,
          snapshot: {
            meta: { index: stateIndex, term: this.logStore.term(stateIndex), confState: membership.confState },
            data: encodeMembership({ ...membership, index: stateIndex }),
          },
        }
      : message;
    const groupId = this.config.groupId;
    const wireMessage = raftMessageToWire(restamped);
    async function* chunks(): AsyncGenerator<raftq.raft.SnapshotChunk.$Properties> {
      let isFirst = true;
      for await (const chunk of snapshotChunks(frozen, raftLimits.snapshotChunkBytes.value)) {
        yield { groupId, message: isFirst ? wireMessage : null, offsetBytes: chunk.offsetBytes, data: chunk.data, isLast: chunk.isLast, checksum: chunk.checksum };
        isFirst = false;
      }
    }
    const startedAt = Date.now();
    this.logger.info({ peerId, index: restamped.snapshot?.meta.index }, 'sending a snapshot');
    this.transport
      .sendSnapshot(peerId, chunks(), raftLimits.snapshotSendTimeoutMs.value)
      .then(
        (ack) => {
          if (!ack.isInstalled) throw new SnapshotTransferError(peerId, ack.error || 'not installed');
          this.metrics.snapshotSends.inc({ result: 'installed' });
          this.logger.info({ peerId, durationMs: Date.now() - startedAt }, 'snapshot installed on the follower');
          this.runInLoop(() => this.raw.reportSnapshot(peerId, 'finished')).catch(() => undefined);
        },
      )
      .catch((error: unknown) => {
        this.metrics.snapshotSends.inc({ result: 'failed' });
        this.logger.warn({ peerId, err: error }, 'snapshot send failed');
        this.runInLoop(() => this.raw.reportSnapshot(peerId, 'failure')).catch(() => undefined);
      })
      .finally(() => {
        this.snapshotSendsInFlight.delete(peerId);
        void frozen.release().catch(() => undefined);
      });
  }

  /** Receives a streamed snapshot into DATA/state-incoming, then offers it to the core. */
  private async receiveSnapshot(chunks: AsyncIterable<raftq.raft.SnapshotChunk>, fromId: string): Promise<raftq.raft.SnapshotAck.$Properties> {
    if (this.isReceivingSnapshot) return { isInstalled: false, error: 'another snapshot is being received' };
    if (this.isStoppingValue) return { isInstalled: false, error: 'node is stopping' };
    this.isReceivingSnapshot = true;
    let incoming: IncomingState | null = null;
    let isComplete = false;
    try {
      incoming = await IncomingState.create(statePaths(this.config.dataDir).incoming);
      const verifier = new ChunkVerifier();
      let message: RaftMessage | null = null;
      for await (const chunk of chunks) {
        if (chunk.groupId !== this.config.groupId) throw new SnapshotTransferError(fromId, `chunk for group ${chunk.groupId}`);
        if (message === null && chunk.message) message = raftMessageFromWire(chunk.message);
        const verdict = verifier.accept({ offsetBytes: Number(chunk.offsetBytes), data: chunk.data, isLast: chunk.isLast, checksum: chunk.checksum });
        if (!verdict.ok) throw new SnapshotTransferError(fromId, verdict.why);
        await incoming.writeChunk(chunk.data);
        if (chunk.isLast) isComplete = true;
      }
      if (!isComplete || message === null || message.snapshot === null) throw new SnapshotTransferError(fromId, 'the stream ended before its last chunk');
      await incoming.finish();
      const snapshot = message.snapshot;
      const installed = await new Promise<boolean>((resolve) => {
        this.pendingSnapshotStep = { message, resolve };
        this.kick();
      });
      if (!installed) {
        await incoming.abandon();
        return { isInstalled: false, error: `the snapshot at ${snapshot.meta.index} was not needed` };
      }
      return { isInstalled: true };
    } catch (error) {
      await incoming?.abandon();
      this.logger.warn({ fromId, err: error }, 'snapshot receive failed');
      return { isInstalled: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.isReceivingSnapshot = false;
    }
  }

  private stepPendingSnapshot(): void {
    const pending = this.pendingSnapshotStep;
    if (pending === null || this.awaitedSnapshotIndex !== null) return;
    this.awaitedSnapshotIndex = pending.message.snapshot?.meta.index ?? null;
    this.raw.step(pending.message);
  }

  /** The snapshot step did not produce a Ready with that snapshot: the core did not want it. */
  private finishSnapshotStep(): void {
    const pending = this.pendingSnapshotStep;
    if (pending === null || this.awaitedSnapshotIndex === null) return;
    this.pendingSnapshotStep = null;
    this.awaitedSnapshotIndex = null;
    pending.resolve(false);
  }

  private async installSnapshot(ready: Ready): Promise<void> {
    const snapshot = ready.snapshot;
    assert(snapshot !== null, 'installSnapshot without a snapshot');
    const pending = this.pendingSnapshotStep;
    assert(pending !== null && this.awaitedSnapshotIndex === snapshot.meta.index, `a Ready carries snapshot ${snapshot.meta.index} that was not received`);
    const addresses = snapshot.data.byteLength > 0 ? decodeMembership(snapshot.data).addresses : this.logStore.currentMembership().addresses;
    await this.state.close();
    await swapInSnapshot(this.config.dataDir, { meta: snapshot.meta, addresses }, this.logStore);
    this.state = await StateStore.open(statePaths(this.config.dataDir).live);
    for (const observer of this.stateObservers) observer.onStateOpened(this.state);
    this.pendingSnapshotStep = null;
    this.awaitedSnapshotIndex = null;
    this.refreshPeers();
    this.metrics.snapshotInstalls.inc();
    this.logger.info({ index: snapshot.meta.index, term: snapshot.meta.term, stateAppliedIndex: this.state.appliedIndex }, 'installed a snapshot from the leader');
    this.appliedWaiters.notify();
    pending.resolve(true);
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The commit index as the leader confirms it now (ReadIndex), on any node. */
  async readIndex(timeoutMs: number = raftLimits.readIndexTimeoutMs.value): Promise<number> {
    const deadlineMs = Date.now() + timeoutMs;
    const startedAt = performance.now();
    for (;;) {
      const remainingMs = deadlineMs - Date.now();
      if (remainingMs <= 0) throw new ReadIndexTimeoutError(this.config.id, timeoutMs);
      const leader = await this.waitForLeader(Math.min(remainingMs, raftLimits.leaderWaitMs.value));
      try {
        const index = leader === this.config.id ? await this.localReadIndex(remainingMs) : await this.remoteReadIndex(leader, remainingMs);
        this.metrics.readIndexSeconds.observe((performance.now() - startedAt) / 1000);
        return index;
      } catch (error) {
        if (error instanceof ReadIndexTimeoutError) throw error;
        // Leadership moved or the leader was unreachable: ask again, within the deadline.
        await delay(Math.min(50, Math.max(0, deadlineMs - Date.now())));
      }
    }
  }

  private localReadIndex(timeoutMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ReadIndexTimeoutError(this.config.id, timeoutMs)), timeoutMs);
      this.readRounds.enqueue({
        resolve: (index) => {
          clearTimeout(timer);
          resolve(index);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.kick();
    });
  }

  private issueReadRounds(): void {
    const round = this.readRounds.issue();
    if (round === null) return;
    try {
      this.raw.readIndex(round.context);
    } catch (error) {
      if (!(error instanceof ReadIndexDroppedError)) throw error;
      this.readRounds.fail(round.context, new NotLeaderError(this.config.id, this.softState.leader, { cause: error }));
    }
  }

  private async remoteReadIndex(leader: string, timeoutMs: number): Promise<number> {
    const answer = await this.transport.call(leader, 'readIndex', { groupId: this.config.groupId, from: this.config.id }, timeoutMs);
    if (!answer.isLeader) throw new NotLeaderError(leader, answer.leaderHint ?? '');
    return Number(answer.readIndex);
  }

  /** Resolves once this replica applied `index`; false on timeout. */
  waitApplied(index: number, timeoutMs: number): Promise<boolean> {
    return this.appliedWaiters.waitFor(index, timeoutMs);
  }

  // ---- TxnExecutor -------------------------------------------------------------------------

  async readView(options: { linearizable: boolean }): Promise<ReadView> {
    if (this.isStoppingValue) throw new NodeStoppingError(this.config.id);
    if (options.linearizable) {
      const startedMs = Date.now();
      const index = await this.readIndex();
      const remainingMs = Math.max(1, raftLimits.readIndexTimeoutMs.value - (Date.now() - startedMs));
      if (!(await this.waitApplied(index, remainingMs))) throw new ReadIndexTimeoutError(this.config.id, raftLimits.readIndexTimeoutMs.value);
    }
    return this.state.mvcc.readView();
  }

  commit(txn: Txn): Promise<TxnOutcome> {
    return this.committer.commit(txn);
  }

  nowMs(): number {
    return this.clock.nowMs();
  }

  onApplied(listener: (writtenKeys: readonly Uint8Array[]) => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  // ---- leadership and membership helpers ----------------------------------------------------

  get id(): string {
    return this.config.id;
  }

  leaderId(): string {
    return this.softState.leader;
  }

  isLeader(): boolean {
    return this.softState.role === 'leader';
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
    this.leaderListeners.add(listener);
    return () => this.leaderListeners.delete(listener);
  }

  /** The leader's id, waiting up to `timeoutMs` for one to be known. */
  waitForLeader(timeoutMs: number): Promise<string> {
    if (this.softState.leader !== '') return Promise.resolve(this.softState.leader);
    if (this.isStoppingValue) return Promise.reject(new NodeStoppingError(this.config.id));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new NoLeaderError(this.config.id, timeoutMs));
      }, timeoutMs);
      const unsubscribe = this.onLeadershipChange(() => {
        if (this.softState.leader === '') return;
        clearTimeout(timer);
        unsubscribe();
        resolve(this.softState.leader);
      });
    });
  }

  membership(): Membership {
    return this.logStore.currentMembership();
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

  callPeer: GrpcTransport['call'] = (peerId, name, request, timeoutMs) => this.transport.call(peerId, name, request, timeoutMs);

  // ---- status ------------------------------------------------------------------------------

  role(): NodeRole {
    const status = this.raw.status();
    if (status.isLearner) return 'learner';
    if (status.role === 'precandidate') return 'candidate';
    return status.role;
  }

  async status(): Promise<NodeStatus> {
    const status = this.raw.status();
    const membership = this.logStore.currentMembership();
    const digest = await this.state.digest();
    const members: MemberStatus[] = [
      ...membership.confState.voters.map((id) => ({ id, address: this.config.peers[id] ?? membership.addresses[id] ?? '', role: 'voter' as const })),
      ...membership.confState.learners.map((id) => ({ id, address: this.config.peers[id] ?? membership.addresses[id] ?? '', role: 'learner' as const })),
    ];
    return {
      id: this.config.id,
      role: this.role(),
      term: status.term,
      leader: status.leader,
      commitIndex: status.commit,
      appliedIndex: digest.appliedIndex,
      members,
      stateDigest: digest.digest,
      lastIndex: this.logStore.lastIndex(),
      firstIndex: this.logStore.firstIndex(),
      snapshotIndex: this.logStore.snapshot().meta.index,
      clockOffsetMs: this.clock.leaderOffsetMs(),
      artificialClockOffsetMs: this.clock.artificialOffset(),
      capabilities: nodeCapabilities,
      logTailRepair: {
        state: this.tailRepairGuard.state,
        keptLastIndex: this.logStore.tailRepair?.keptLastIndex ?? null,
        leaderCommitIndexSeen: this.tailRepairGuard.leaderCommitIndexSeen,
      },
    };
  }

  /** Ready: a leader is known and this replica applied what the cluster had committed when asked. */
  async isReady(timeoutMs: number): Promise<boolean> {
    if (this.softState.leader === '' || this.isStoppingValue || this.tailRepairGuard.isRepairing) return false;
    try {
      const index = await this.readIndex(timeoutMs);
      return this.state.appliedIndex >= index || (await this.waitApplied(index, timeoutMs));
    } catch {
      return false;
    }
  }

  private updateGauges(): void {
    const status = this.raw.status();
    this.metrics.term.set(status.term);
    this.metrics.commitIndex.set(status.commit);
    this.metrics.appliedIndex.set(this.state.appliedIndex);
    this.metrics.lastIndex.set(this.logStore.lastIndex());
    this.metrics.logBytes.set(this.logStore.logBytes());
    this.metrics.setRole(this.role());
    this.metrics.clockOffsetMs.set(this.clock.leaderOffsetMs() + this.clock.artificialOffset());
    for (const [peer, stats] of Object.entries(this.transport.linkStats())) this.metrics.droppedRaftMessages.set({ peer }, stats.dropped);
  }

  // ---- background work ------------------------------------------------------------------------

  private async sampleLeaderClock(): Promise<void> {
    const leader = this.softState.leader;
    if (leader === '' || leader === this.config.id || this.isStoppingValue) return;
    const sentAtMs = this.clock.wallMs();
    try {
      const answer = await this.transport.call(leader, 'clockSample', { groupId: this.config.groupId, from: this.config.id }, 1_000);
      if (answer.isLeader && this.softState.leader === leader) this.clock.recordSample({ sentAtMs, receivedAtMs: this.clock.wallMs(), leaderNowMs: answer.nowMs });
    } catch {
      // The leader is unreachable; the next sample will tell.
    }
  }

  private isCollecting = false;
  /** The applied index when the last full collection pass ended: an idle node stops scanning. */
  private gcPassAppliedIndex = -1;

  private scheduleGarbageCollection(): void {
    if (this.isCollecting || this.isStoppingValue || this.gcPassAppliedIndex === this.state.appliedIndex) return;
    this.isCollecting = true;
    this.runInLoop(async () => {
      const appliedIndex = this.state.appliedIndex;
      const report = await this.state.mvcc.collectGarbage();
      if (report.isPassComplete) this.gcPassAppliedIndex = appliedIndex;
    })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'garbage collection step failed'))
      .finally(() => (this.isCollecting = false));
  }

  // ---- inbound calls ----------------------------------------------------------------------------

  private transportHandlers(): TransportHandlers {
    return {
      onRaftMessage: (message) => {
        if (!this.isLoopRunning) return;
        if (message.type === MessageType.Snap) return; // snapshots arrive only through SendSnapshot
        const admitted = this.tailRepairGuard.admit(message, this.logStore.lastIndex());
        if (admitted === null) return;
        this.raw.step(admitted);
        this.kick();
      },
      onSnapshot: (chunks, fromId) => this.receiveSnapshot(chunks, fromId),
      onPeerUnreachable: (peerId) => {
        if (this.isLoopRunning) this.raw.reportUnreachable(peerId);
      },
      forwardTxns: (request) => this.committer.serveForwarded(request),
      readIndex: async () => {
        if (this.softState.role !== 'leader') return { isLeader: false, readIndex: 0, leaderHint: this.softState.leader };
        try {
          return { isLeader: true, readIndex: await this.localReadIndex(raftLimits.readIndexTimeoutMs.value), leaderHint: this.config.id };
        } catch {
          return { isLeader: false, readIndex: 0, leaderHint: this.softState.leader };
        }
      },
      addMember: (request) => this.membershipAdmin.serve(() => this.membershipAdmin.addMember(request.nodeId, request.raftAddress)),
      removeMember: (request) => this.membershipAdmin.serve(() => this.membershipAdmin.removeMember(request.nodeId)),
      transferLeader: (request) => this.membershipAdmin.serve(() => this.membershipAdmin.transferLeader(request.nodeId)),
      status: async () => {
        const status = this.raw.status();
        return { id: this.config.id, role: this.role(), term: status.term, leader: status.leader, commitIndex: status.commit, appliedIndex: this.state.appliedIndex };
      },
      clockSample: async () => ({ nowMs: this.clock.nowMs(), isLeader: this.softState.role === 'leader' }),
    };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

